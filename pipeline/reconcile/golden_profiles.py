"""A unit's golden model profiles (`unit_profiles`), their conflicts, and the statlines they lend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.reconcile.composition import Counted, counts_for
from pipeline.reconcile.keys import display_name
from pipeline.reconcile.precedence import Choice
from pipeline.reconcile.profiles import CONFLICT_FIELDS, STAT_FIELDS, ProfileCluster
from schemas.golden import UnitProfile
from schemas.records import ModelProfile

#: unit_profiles columns filled from the chosen values.
CHOSEN_COLUMNS = (*STAT_FIELDS, "invuln_condition", "invuln_melee", "fnp", "fnp_source", "damage_reduction",
                  "damage_reduction_source", "unit_size")  # fmt: skip


@dataclass(frozen=True)
class ProfileSet:
    """The clusters of one unit with each stat's choice; cluster 0 is the main model."""

    clusters: Sequence[ProfileCluster]
    choices: Sequence[dict[str, Choice]]

    def names(self) -> list[str]:
        """A unique display name per cluster: its freshest name, `#2` on a repeat."""
        seen: dict[str, int] = {}
        names = []
        for cluster in self.clusters:
            name = display_name(cluster.name)
            seen[name] = seen.get(name, 0) + 1
            names.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
        return names


def unit_profiles(unit_id: str, profiles: ProfileSet, composition: Sequence[Counted]) -> list[UnitProfile]:
    rows = []
    for position, (name, cluster, choices) in enumerate(
        zip(profiles.names(), profiles.clusters, profiles.choices, strict=True), start=1
    ):
        lead = cluster.records[0]
        counts = _counts(cluster, composition)
        halving = next((p for p in cluster.records if p.halve_damage), None)
        rows.append(
            UnitProfile(
                unit_id=unit_id,
                profile_name=name,
                position=position,
                profile_id=lead.profile_id,
                profile_ids=list(dict.fromkeys(p.profile_id for p in cluster.records)),
                keywords=list(lead.keywords),
                halve_damage=halving is not None,
                halve_damage_source=halving.halve_damage_source if halving else None,
                min_models=counts[0] if counts else None,
                max_models=counts[1] if counts else None,
                source_id=lead.source_id,
                line=lead.line,
                provenance={f: choices[f].provenance for f in CHOSEN_COLUMNS if choices[f].source is not None},
                **{f: choices[f].typed for f in CHOSEN_COLUMNS},
            )
        )
    return rows


def _counts(cluster: ProfileCluster, composition: Sequence[Counted]) -> tuple[int, int] | None:
    for item in cluster.items:
        found = counts_for(item.words, composition)
        if found is not None:
            return found
    return None


def model_conflict_fields(profiles: ProfileSet) -> list[tuple[str, Choice]]:
    """(field, choice) of every stat where a model's matched profiles differ: the main model's as
    the statline field (`wounds`), the others' as `model:<name>:<stat>`."""
    found = []
    for index, (name, choices) in enumerate(zip(profiles.names(), profiles.choices, strict=True)):
        for stat in CONFLICT_FIELDS:
            if choices[stat].conflict:
                found.append((stat if index == 0 else f"model:{name}:{stat}", choices[stat]))
    return found


def fills(profiles: ProfileSet) -> dict[int, ModelProfile]:
    """Profiles without a statline, with the missing stats taken from their matched model."""
    filled = {}
    for cluster, choices in zip(profiles.clusters, profiles.choices, strict=True):
        for _, item in cluster.entries:
            if len(cluster.entries) > 1 and not item.record.has_statline:
                filled[id(item.record)] = fill_profile(item.record, choices)
    return filled


def fill_profile(profile: ModelProfile, choices: dict[str, Choice]) -> ModelProfile:
    """A copy of `profile` with its NULL stats set from the chosen values, saying from where."""
    updates: dict[str, object] = {}
    origin: dict[str, list[str]] = {}
    for name in (*STAT_FIELDS, "invuln_condition"):
        choice = choices[name]
        if name == "invuln_condition" and "invuln" not in updates:
            continue  # a condition belongs to the invulnerable save it came with
        if getattr(profile, name) is None and choice.typed is not None and choice.source is not None:
            updates[name] = choice.typed
            origin.setdefault(choice.source, []).append(name)
    if not updates:
        return profile
    updates["stats_from"] = "; ".join(f"{source}: {', '.join(names)}" for source, names in origin.items())
    return profile.model_copy(update=updates)
