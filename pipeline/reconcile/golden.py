"""The golden record of one unit — `units`, `unit_profiles`, `unit_weapons`, `unit_points` — its
source conflicts, and the statlines it lends.

Every field comes from the freshest source that has a value (precedence.py); `provenance`
says which source and why. Rules: docs/reconcile.md#golden-records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.reconcile.composition import Counted
from pipeline.reconcile.golden_points import unit_points
from pipeline.reconcile.golden_profiles import ProfileSet, fills, model_conflict_fields, unit_profiles
from pipeline.reconcile.golden_weapons import unit_weapons
from pipeline.reconcile.keys import display_name
from pipeline.reconcile.matching import ResolvedUnit
from pipeline.reconcile.members import Member
from pipeline.reconcile.precedence import Choice, Offer, choose, choose_paired
from pipeline.reconcile.profiles import STAT_FIELDS, profile_clusters, render, stat_choices
from pipeline.reconcile.roles import role_of
from schemas.golden import UnitPoints, UnitProfile, UnitWeapon
from schemas.records import ModelProfile, SourceConflict, Unit


@dataclass(frozen=True)
class UnitContext:
    """What a unit's golden record needs from outside the unit."""

    faction_names: Mapping[str, str]
    #: datasheet_id of a home datasheet -> its unit_id (for copies).
    unit_of: Mapping[str, str] = field(default_factory=dict)
    #: datasheet_id -> its parsed unit composition lines.
    composition: Mapping[str, Sequence[Counted]] = field(default_factory=dict)


@dataclass
class UnitOutcome:
    """What reconciling one unit produces."""

    unit: Unit
    profiles: list[UnitProfile] = field(default_factory=list)
    weapons: list[UnitWeapon] = field(default_factory=list)
    points: list[UnitPoints] = field(default_factory=list)
    conflicts: list[SourceConflict] = field(default_factory=list)
    #: id() of a ModelProfile without a statline -> its copy with stats filled in.
    filled: dict[int, ModelProfile] = field(default_factory=dict)


def _identity(resolved: ResolvedUnit, context: UnitContext) -> dict[str, Choice]:
    """Name of the freshest datasheet; faction, legend status and role."""
    members = resolved.members
    lead = members[0]
    why = "freshest source" if len(members) > 1 else "only source"
    faction = context.faction_names.get(resolved.faction_key, lead.sheet.faction)
    roles = [Offer(m.sheet.source_id, m.dating, role_of(m.sheet.role, m.keywords), m.datasheet_id, m.sheet.role)
             for m in members]  # fmt: skip
    return {
        "name": Choice(display_name(lead.sheet.name), lead.sheet.source_id, why, {}),
        "faction": Choice(faction, lead.sheet.source_id, "the faction the unit is filed under", {}),
        "role": choose(roles),
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


def _home_unit(resolved: ResolvedUnit, context: UnitContext) -> str | None:
    homes = {context.unit_of.get(m.copy_of) for m in resolved.members if m.copy_of}
    homes.discard(None)
    homes.discard(resolved.unit_id)
    return sorted(h for h in homes if h)[0] if homes else None


def _unit_record(resolved: ResolvedUnit, choices: dict[str, Choice], context: UnitContext) -> Unit:
    stats = {name: choices[name].typed for name in (*STAT_FIELDS, "invuln_condition", "points", "points_models")}
    role = choices["role"]
    return Unit(
        unit_id=resolved.unit_id,
        faction=choices["faction"].value,
        name=choices["name"].value,
        legend=resolved.legend is not None,
        legend_tag=resolved.legend,
        role=role.value,
        role_source=role.typed,
        home_unit_id=_home_unit(resolved, context),
        datasheet_ids=[m.datasheet_id for m in resolved.members],
        sources=list(dict.fromkeys(m.sheet.source_id for m in resolved.members)),
        provenance={name: c.provenance for name, c in sorted(choices.items()) if c.source is not None},
        **stats,
    )


def _composition(members: Sequence[Member], context: UnitContext) -> list[Counted]:
    """The first composition the unit's datasheets give (freshest first)."""
    for member in members:
        lines = context.composition.get(member.datasheet_id) or context.composition.get(member.copy_of or "")
        if lines:
            return list(lines)
    return []


def reconcile_unit(resolved: ResolvedUnit, context: UnitContext) -> UnitOutcome:
    """Golden rows, conflicts and filled statlines of one unit (members freshest first)."""
    unit_id, members = resolved.unit_id, resolved.members
    clusters = profile_clusters(members)
    profile_set = ProfileSet(clusters, [stat_choices(c) for c in clusters])
    main = {
        k: v for k, v in (profile_set.choices[0] if clusters else {}).items() if k in (*STAT_FIELDS, "invuln_condition")
    }
    if not main:
        main = {k: Choice(None, None, "no source has a value", {}) for k in (*STAT_FIELDS, "invuln_condition")}
    points = _points_choices(members)
    choices = {**_identity(resolved, context), **main, **points}
    profiles = unit_profiles(unit_id, profile_set, _composition(members, context))
    weapons, weapon_conflicts = unit_weapons(unit_id, members)
    found = [*model_conflict_fields(profile_set), *((k, c) for k, c in points.items() if c.conflict), *weapon_conflicts]
    return UnitOutcome(
        unit=_unit_record(resolved, choices, context),
        profiles=profiles,
        weapons=weapons,
        points=unit_points(unit_id, members, profiles),
        conflicts=[_conflict(unit_id, name, c) for name, c in found],
        filled=fills(profile_set),
    )
