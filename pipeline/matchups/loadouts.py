"""Golden default loadouts (`unit_loadouts`): per golden unit and points option, the freshest datasheet's
default loadout that resolves, its profiles and weapons mapped onto the unit's golden ones.

Rules and reasons: docs/units.md#golden-loadouts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pipeline.reconcile.keys import fold
from schemas.golden import UnitPoints, UnitProfile, UnitWeapon
from schemas.records import DatasheetLoadout, LoadoutIssue, ModelProfile, Unit, Weapon
from schemas.units import LoadoutMapping, UnitLoadout, UnitLoadoutIssue

T = TypeVar("T")


@dataclass(frozen=True)
class LoadoutInputs:
    """What the resolver reads, grouped by unit and datasheet."""

    units: Sequence[Unit]
    profiles: Mapping[str, Sequence[UnitProfile]]
    weapons: Mapping[str, Sequence[UnitWeapon]]
    points: Mapping[str, Sequence[UnitPoints]]
    loadouts: Mapping[str, Sequence[DatasheetLoadout]]
    unresolved: Mapping[str, Sequence[str]]
    sheet_profiles: Mapping[str, Sequence[ModelProfile]]
    source_weapons: Mapping[str, Weapon]


class Unmapped(Exception):
    """A datasheet's loadout names a profile or weapon the golden unit does not have."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class GoldenMaps:
    """Source profile / weapon -> golden profile name / weapon id of one unit."""

    profile_of: Mapping[str, str]
    profile_by_name: Mapping[str, str]
    weapon_of: Mapping[str, str]
    weapons_by_name: Mapping[tuple[str, str], Sequence[UnitWeapon]]
    golden_ids: frozenset[str]

    @classmethod
    def of(cls, profiles: Sequence[UnitProfile], weapons: Sequence[UnitWeapon]) -> GoldenMaps:
        by_name: dict[tuple[str, str], list[UnitWeapon]] = defaultdict(list)
        for weapon in weapons:
            by_name[(fold(weapon.name), weapon.kind)].append(weapon)
        return cls(
            profile_of={pid: p.profile_name for p in profiles for pid in [p.profile_id, *p.profile_ids]},
            profile_by_name={fold(p.profile_name): p.profile_name for p in profiles},
            weapon_of={wid: w.weapon_id for w in weapons for wid in w.weapon_ids if wid != w.weapon_id},
            weapons_by_name=by_name,
            golden_ids=frozenset(w.weapon_id for w in weapons),
        )

    def profile(self, sheet_profiles: Sequence[ModelProfile], name: str) -> str:
        """The golden profile of a source profile name: by matched profile id, else by folded name."""
        for row in sheet_profiles:
            if row.name == name and row.profile_id in self.profile_of:
                return self.profile_of[row.profile_id]
        found = self.profile_by_name.get(fold(name))
        if found is None and len(self.profile_by_name) == 1:
            found = next(iter(self.profile_by_name.values()))
        if found is None:
            raise Unmapped("profile not in the golden profiles", name)
        return found

    def weapon(self, weapon_id: str, source: Weapon | None) -> tuple[str, LoadoutMapping]:
        """The golden weapon of a source weapon row: itself, a matched row, else by folded name and kind."""
        if weapon_id in self.golden_ids:
            return weapon_id, "source row"
        if weapon_id in self.weapon_of:
            return self.weapon_of[weapon_id], "matched row"
        if source is not None:
            named = self.weapons_by_name.get((fold(source.name), source.kind), ())
            same = [w for w in named if _same_profile(w, source)] if len(named) > 1 else list(named)
            if same:
                return sorted(same, key=lambda w: w.weapon_id)[0].weapon_id, "folded name"
        raise Unmapped("weapon not in the golden weapons", source.name if source else weapon_id)


def _same_profile(golden: UnitWeapon, source: Weapon) -> bool:
    return (golden.attacks, golden.skill, golden.strength, golden.ap, golden.damage) == (
        source.attacks, source.skill, source.strength, source.ap, source.damage,
    )  # fmt: skip


@dataclass(frozen=True)
class UnitOutcome:
    rows: list[UnitLoadout]
    issues: list[UnitLoadoutIssue]
    datasheet_id: str | None  # the source of the first resolved option (None: nothing resolved)


def _mapped_option(
    unit: Unit, rows: Sequence[DatasheetLoadout], maps: GoldenMaps, inputs: LoadoutInputs, fallback: bool
) -> list[UnitLoadout]:
    """One datasheet's rows of one option as golden rows (raises Unmapped)."""
    out: dict[tuple[str, str, str], UnitLoadout] = {}
    for row in rows:
        profile = maps.profile(inputs.sheet_profiles.get(row.datasheet_id, ()), row.profile_name)
        weapon_id, mapped_by = maps.weapon(row.weapon_id, inputs.source_weapons.get(row.weapon_id))
        key = (row.option, row.model_group, weapon_id)
        if key in out:
            continue
        out[key] = UnitLoadout(
            unit_id=unit.unit_id, models=row.models, option=row.option, model_group=row.model_group,
            profile_name=profile, model_count=row.model_count, weapon_id=weapon_id, per_model=row.per_model,
            profile_group=row.profile_group, allocation_order=row.allocation_order, datasheet_id=row.datasheet_id,
            fallback=fallback, mapped_by=mapped_by, source_id=row.source_id, line=row.line,
        )  # fmt: skip
    return list(out.values())


def resolve_unit(unit: Unit, inputs: LoadoutInputs) -> UnitOutcome:
    """Each golden option from the first datasheet (precedence order) whose loadout has it and maps."""
    profiles, weapons = inputs.profiles.get(unit.unit_id, ()), inputs.weapons.get(unit.unit_id, ())
    maps = GoldenMaps.of(profiles, weapons)
    options = sorted({p.models for p in inputs.points.get(unit.unit_id, ())})
    if not options:
        return UnitOutcome([], [UnitLoadoutIssue(unit_id=unit.unit_id, models=0, reason="no points option",
                                                  detail="")], None)  # fmt: skip
    rows: list[UnitLoadout] = []
    issues: list[UnitLoadoutIssue] = []
    first: str | None = None
    for models in options:
        tried: list[str] = []
        reasons: list[str] = []
        for place, sheet in enumerate(unit.datasheet_ids):
            if sheet in inputs.unresolved:
                tried.append(f"{sheet}: {'; '.join(inputs.unresolved[sheet])}")
                reasons.append("source loadout unresolved")
                continue
            of_size = [r for r in inputs.loadouts.get(sheet, ()) if r.models == models]
            if not of_size:
                tried.append(f"{sheet}: no loadout of {models} models")
                reasons.append("no source loadout of this size")
                continue
            try:
                rows.extend(_mapped_option(unit, of_size, maps, inputs, place > 0))
            except Unmapped as missing:
                tried.append(f"{sheet}: {missing.reason}: {missing.detail}")
                reasons.append(missing.reason)
                continue
            first = first or sheet
            break
        else:
            issues.append(UnitLoadoutIssue(unit_id=unit.unit_id, models=models, reason=_reason(reasons),
                                           detail=" | ".join(tried)))  # fmt: skip
    return UnitOutcome(rows, issues, first)


#: When datasheets fail for different reasons, the one named is the most specific.
_REASON_ORDER = (
    "weapon not in the golden weapons",
    "profile not in the golden profiles",
    "source loadout unresolved",
    "no source loadout of this size",
)


def _reason(reasons: Iterable[str]) -> str:
    found = set(reasons)
    return next((r for r in _REASON_ORDER if r in found), "no datasheet with a default loadout")


def loadout_inputs(
    units: Sequence[Unit],
    profiles: Iterable[UnitProfile],
    weapons: Iterable[UnitWeapon],
    points: Iterable[UnitPoints],
    loadouts: Iterable[DatasheetLoadout],
    issues: Iterable[LoadoutIssue],
    sheet_profiles: Iterable[ModelProfile],
    source_weapons: Iterable[Weapon],
) -> LoadoutInputs:
    unresolved: dict[str, list[str]] = defaultdict(list)
    for issue in issues:
        if issue.severity == "unresolved" and issue.reason not in unresolved[issue.datasheet_id]:
            unresolved[issue.datasheet_id].append(issue.reason)
    return LoadoutInputs(
        units=units,
        profiles=_grouped(profiles, lambda p: p.unit_id),
        weapons=_grouped(weapons, lambda w: w.unit_id),
        points=_grouped(points, lambda p: p.unit_id),
        loadouts=_grouped(loadouts, lambda r: r.datasheet_id),
        unresolved=dict(unresolved),
        sheet_profiles=_grouped(sheet_profiles, lambda p: p.datasheet_id),
        source_weapons={w.weapon_id: w for w in source_weapons},
    )


def _grouped(rows: Iterable[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    grouped: dict[str, list[T]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
    return grouped
