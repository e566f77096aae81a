"""The golden record of one unit, its source conflicts, and the statlines it lends.

Every field comes from the freshest source that has a value (precedence.py);
`provenance` says which source and why. Wherever matched sources hold different
values — statline, points, a matched weapon's characteristics — a
`SourceConflict` lists every source's value, the chosen one and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.reconcile.keys import display_name
from pipeline.reconcile.members import Member
from pipeline.reconcile.names import Cluster
from pipeline.reconcile.precedence import Choice, Offer, choose, choose_paired
from pipeline.reconcile.profiles import STAT_FIELDS, profile_clusters, render, stat_choices
from pipeline.reconcile.weapons import weapon_choices, weapon_clusters, weapon_labels
from schemas.records import ModelProfile, SourceConflict, Unit


@dataclass
class UnitOutcome:
    """What reconciling one unit produces."""

    unit: Unit
    conflicts: list[SourceConflict] = field(default_factory=list)
    #: id() of a ModelProfile without a statline -> its copy with stats filled in.
    filled: dict[int, ModelProfile] = field(default_factory=dict)


def _identity(members: Sequence[Member], unit_faction_key: str) -> dict[str, Choice]:
    """Name and faction of the freshest datasheet (faction: one filed under the unit's faction)."""
    lead = members[0]
    home = next((m for m in members if m.faction_keys[0] == unit_faction_key), lead)
    why = "freshest source" if len(members) > 1 else "only source"
    home_why = "freshest source filed under the unit's faction" if len(members) > 1 else "only source"
    return {
        "name": Choice(display_name(lead.sheet.name), lead.sheet.source_id, why, {}),
        "faction": Choice(home.sheet.faction, home.sheet.source_id, home_why, {}),
    }


def _points_choices(members: Sequence[Member]) -> dict[str, Choice]:
    """Cost of the cheapest option, and its model count from the same datasheet."""
    cheapest = [(m, m.cheapest()) for m in members]
    costs = [
        Offer(p.source_id or m.sheet.source_id, m.dating, render("points", p.cost), m.datasheet_id, p.cost)
        for m, p in cheapest
        if p is not None
    ]
    sizes = [
        Offer(p.source_id or m.sheet.source_id, m.dating, render("points_models", p.models), m.datasheet_id, p.models)
        for m, p in cheapest
        if p is not None
    ]
    points = choose(costs)
    return {"points": points, "points_models": choose_paired(points, "points", sizes)}


def _conflict(unit_id: str, name: str, choice: Choice) -> SourceConflict:
    return SourceConflict(
        unit_id=unit_id,
        field=name,
        values=choice.values,
        chosen=choice.value,
        chosen_source=choice.source,
        reason=choice.reason,
    )


def _unit_record(unit_id: str, members: Sequence[Member], choices: dict[str, Choice]) -> Unit:
    values = {name: c.typed if name not in ("name", "faction") else c.value for name, c in choices.items()}
    return Unit(
        unit_id=unit_id,
        faction=values.pop("faction"),
        name=values.pop("name"),
        datasheet_ids=[m.datasheet_id for m in members],
        sources=list(dict.fromkeys(m.sheet.source_id for m in members)),
        provenance={name: c.provenance for name, c in sorted(choices.items()) if c.source is not None},
        **values,
    )


def _model_conflicts(
    unit_id: str, clusters: Sequence[Cluster[ModelProfile]], stats: Sequence[dict[str, Choice]]
) -> list[SourceConflict]:
    """Conflicts of the models other than the main one (`model:<name>:<stat>`)."""
    found = []
    for cluster, choices in zip(clusters[1:], stats[1:], strict=True):
        found += [_conflict(unit_id, f"model:{cluster.name}:{n}", c) for n, c in choices.items() if c.conflict]
    return found


def _weapon_conflicts(unit_id: str, members: Sequence[Member]) -> list[SourceConflict]:
    if len(members) < 2:
        return []
    clusters = weapon_clusters(members)
    found = []
    for label, cluster in zip(weapon_labels(clusters), clusters, strict=True):
        if len({m.datasheet_id for m, _ in cluster.entries}) > 1:
            for name, choice in weapon_choices(cluster).items():
                if choice.conflict:
                    found.append(_conflict(unit_id, f"weapon:{label}:{name}", choice))
    return found


def _fills(clusters: Sequence[Cluster[ModelProfile]], stats: Sequence[dict[str, Choice]]) -> dict[int, ModelProfile]:
    """Profiles without a statline, with the missing stats taken from their matched model."""
    filled = {}
    for cluster, choices in zip(clusters, stats, strict=True):
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


def reconcile_unit(unit_id: str, members: Sequence[Member], unit_faction_key: str) -> UnitOutcome:
    """Golden record, conflicts and filled statlines of one unit (members freshest first)."""
    clusters = profile_clusters(members)
    stats = [stat_choices(c) for c in clusters]
    main = stats[0] if stats else {}
    points = _points_choices(members)
    choices = {**_identity(members, unit_faction_key), **main, **points}
    conflicts = [_conflict(unit_id, name, c) for name, c in {**main, **points}.items() if c.conflict]
    conflicts += _model_conflicts(unit_id, clusters, stats) + _weapon_conflicts(unit_id, members)
    return UnitOutcome(_unit_record(unit_id, members, choices), conflicts, _fills(clusters, stats))
