"""Default-loadout rows from resolved model groups, shared by every source: groups with the same profile
and weapons merged, the allocation order of the profiles (DAMAGE_RULES.md, "Unit level")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from schemas.records import DatasheetLoadout, LoadoutMethod, Points

CHARACTER = "CHARACTER"


@dataclass(frozen=True)
class CarriedWeapon:
    """One weapon profile a model carries: `per_model` of them, `profile_group` naming the weapon, from the
    weapons of `datasheet_id` (the unit's own, or a copy's home)."""

    weapon_id: str
    per_model: int
    profile_group: str
    datasheet_id: str


@dataclass(frozen=True)
class GroupLoadout:
    """Models of one profile in an option that carry the same weapons."""

    name: str
    profile: str
    count: int
    weapons: tuple[CarriedWeapon, ...]


def merged(groups: Iterable[GroupLoadout]) -> list[GroupLoadout]:
    """Groups of one profile carrying the same weapons become one (`Intercessor Sergeant, Intercessor`)."""
    found: dict[tuple[str, frozenset[CarriedWeapon]], GroupLoadout] = {}
    for group in groups:
        if group.count <= 0:
            continue
        signature = (group.profile, frozenset(group.weapons))
        seen = found.get(signature)
        if seen is None:
            found[signature] = group
        else:
            found[signature] = GroupLoadout(
                f"{seen.name}, {group.name}", seen.profile, seen.count + group.count, seen.weapons
            )
    return list(found.values())


def allocation_orders(groups: Sequence[GroupLoadout], characters: set[str]) -> dict[str, int]:
    """Profile -> place in the allocation order: non-CHARACTER profiles first, then the most numerous, then
    by name."""
    totals: dict[str, int] = {}
    for group in groups:
        totals[group.profile] = totals.get(group.profile, 0) + group.count
    ordered = sorted(totals, key=lambda p: (p in characters, -totals[p], p))
    return {profile: place for place, profile in enumerate(ordered, start=1)}


def loadout_rows(
    option: Points,
    groups: Sequence[GroupLoadout],
    method: LoadoutMethod,
    characters: set[str],
) -> list[DatasheetLoadout]:
    """The rows of one points option (its datasheet, source and line are the option's)."""
    kept = merged(groups)
    orders = allocation_orders(kept, characters)
    rows: dict[tuple[str, str], DatasheetLoadout] = {}
    for group in kept:
        for weapon in group.weapons:
            key = (group.name, weapon.weapon_id)
            if key in rows:
                continue
            rows[key] = DatasheetLoadout(
                datasheet_id=option.datasheet_id, models=option.models, option=option.description,
                model_group=group.name, profile_name=group.profile, model_count=group.count,
                weapon_id=weapon.weapon_id, weapon_datasheet_id=weapon.datasheet_id, per_model=weapon.per_model,
                profile_group=weapon.profile_group, allocation_order=orders[group.profile], method=method,
                source_id=option.source_id, line=option.line,
            )  # fmt: skip
    return list(rows.values())
