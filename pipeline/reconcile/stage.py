"""Reconcile stage: the same unit across sources gets one `unit_id`, a golden record
(`units`), a list of disagreements (`source_conflicts`), and datasheets without a
statline (page exports) borrow the golden one — so the damage matrix, which only
targets profiles with a statline, can use them.

Matching: matching.py; precedence (freshest source wins): precedence.py;
golden record and conflicts: golden.py.
"""

from __future__ import annotations

from typing import Any

from pipeline.dataset import Dataset
from pipeline.reconcile.golden import UnitOutcome, reconcile_unit
from pipeline.reconcile.keys import faction_aliases
from pipeline.reconcile.matching import ResolvedUnit, resolve_units
from pipeline.reconcile.members import gather_members
from pipeline.reconcile.report import build_report
from pipeline.runtime import cyclic_gc_paused
from schemas.records import Datasheet, Record


def resolve(dataset: Dataset) -> list[ResolvedUnit]:
    """The units of a dataset (no changes to it): for tests and tools."""
    return resolve_units(gather_members(dataset, faction_aliases()))


def _with_unit_ids(dataset: Dataset, units: list[ResolvedUnit]) -> list[Record]:
    unit_of = {id(m.sheet): u.unit_id for u in units for m in u.members}
    sheets: list[Record] = []
    for sheet in dataset.table("datasheets"):
        assert isinstance(sheet, Datasheet)
        sheets.append(sheet.model_copy(update={"unit_id": unit_of[id(sheet)]}))
    return sheets


def _with_filled_profiles(dataset: Dataset, outcomes: list[UnitOutcome]) -> list[Record]:
    filled = {key: profile for o in outcomes for key, profile in o.filled.items()}
    return [filled.get(id(p), p) for p in dataset.table("model_profiles")]


def reconcile_stage(dataset: Dataset) -> dict[str, Any]:
    """Fill `Datasheet.unit_id`, add `units` and `source_conflicts`, fill missing statlines.

    Returns the reconciliation report (match rates, conflict counts).
    """
    with cyclic_gc_paused():
        return _reconcile(dataset)


def _reconcile(dataset: Dataset) -> dict[str, Any]:
    units = resolve(dataset)
    outcomes = [reconcile_unit(u.unit_id, u.members, u.faction_key) for u in units]
    conflicts = [c for o in outcomes for c in o.conflicts]
    dataset.replace("datasheets", _with_unit_ids(dataset, units))
    dataset.replace("model_profiles", _with_filled_profiles(dataset, outcomes))
    dataset.replace("units", [o.unit for o in outcomes])
    dataset.replace("source_conflicts", conflicts)
    filled = sum(1 for o in outcomes for p in o.filled.values() if p.stats_from)
    return build_report(units, conflicts, filled)
