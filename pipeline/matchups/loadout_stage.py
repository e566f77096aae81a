"""The golden loadouts stage (after reconcile): `unit_loadouts`, `unit_loadout_issues` and the resolution
report — overall, per source format of the unit's freshest datasheet, per faction, per reason."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from pipeline.dataset import Dataset, Staged
from pipeline.loadouts.report import Rate
from pipeline.matchups.loadouts import UnitOutcome, loadout_inputs, resolve_unit
from schemas.golden import UnitPoints, UnitProfile, UnitWeapon
from schemas.records import Datasheet, DatasheetLoadout, LoadoutIssue, ModelProfile, Source, Unit, Weapon


@dataclass(frozen=True)
class UnitLoadoutReport:
    """Golden units with weapons, and how many have a loadout for every golden option."""

    overall: Rate
    by_source: dict[str, Rate]
    by_faction: dict[str, Rate]
    loadout_from: dict[str, int]
    fallback_units: int
    unresolved: dict[str, int]
    rows: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "by_source": {k: v.as_dict() for k, v in sorted(self.by_source.items())},
            "by_faction": {k: v.as_dict() for k, v in sorted(self.by_faction.items())},
            "loadout_from": dict(sorted(self.loadout_from.items())),
            "fallback_units": self.fallback_units,
            "unresolved": dict(sorted(self.unresolved.items())),
            "rows": self.rows,
        }


def _report(units: list[Unit], outcomes: list[UnitOutcome], formats: dict[str, str]) -> UnitLoadoutReport:
    totals: Counter[str] = Counter()
    done: Counter[str] = Counter()
    faction_totals: Counter[str] = Counter()
    faction_done: Counter[str] = Counter()
    used: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    fallback = 0
    for unit, outcome in zip(units, outcomes, strict=True):
        fmt = formats.get(unit.datasheet_ids[0], "?") if unit.datasheet_ids else "?"
        ok = not outcome.issues
        totals[fmt] += 1
        done[fmt] += ok
        faction_totals[unit.faction] += 1
        faction_done[unit.faction] += ok
        if outcome.datasheet_id is not None:
            used[formats.get(outcome.datasheet_id, "?")] += 1
        fallback += any(r.fallback for r in outcome.rows)
        reasons.update({i.reason for i in outcome.issues})
    return UnitLoadoutReport(
        overall=Rate(sum(totals.values()), sum(done.values())),
        by_source={k: Rate(n, done[k]) for k, n in totals.items()},
        by_faction={k: Rate(n, faction_done[k]) for k, n in faction_totals.items()},
        loadout_from=dict(used),
        fallback_units=fallback,
        unresolved=dict(reasons),
        rows=sum(len(o.rows) for o in outcomes),
    )


def unit_loadouts_stage(dataset: Dataset) -> Staged[UnitLoadoutReport]:
    """Golden loadouts for every unit with golden weapons (units without weapons have nothing to attack with)."""
    armed = {w.unit_id for w in dataset.records(UnitWeapon)}
    units = [u for u in dataset.records(Unit) if u.unit_id in armed]
    inputs = loadout_inputs(
        units,
        dataset.records(UnitProfile),
        dataset.records(UnitWeapon),
        dataset.records(UnitPoints),
        dataset.records(DatasheetLoadout),
        dataset.records(LoadoutIssue),
        dataset.records(ModelProfile),
        dataset.records(Weapon),
    )
    outcomes = [resolve_unit(u, inputs) for u in units]
    source_format = {s.source_id: s.format for s in dataset.records(Source)}
    formats: dict[str, str] = defaultdict(lambda: "?")
    formats.update({d.datasheet_id: source_format.get(d.source_id, "?") for d in dataset.records(Datasheet)})
    report = _report(units, outcomes, formats)
    added = [r for o in outcomes for r in [*o.rows, *o.issues]]
    return Staged(dataset.adding(added), report)
