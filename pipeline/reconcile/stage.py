"""Reconcile stage: the same unit across sources gets one `unit_id`, a golden record
(`units`), a list of disagreements (`source_conflicts`), and datasheets without a
statline (page exports) borrow the golden one — so the damage matrix, which only
targets profiles with a statline, can use them.

Matching: matching.py; precedence (freshest source wins): precedence.py;
golden record and conflicts: golden.py.
"""

from __future__ import annotations

from pipeline.dataset import Dataset, Staged
from pipeline.reconcile.golden import UnitOutcome, reconcile_unit
from pipeline.reconcile.keys import faction_aliases
from pipeline.reconcile.matching import ResolvedUnit, resolve_units
from pipeline.reconcile.members import gather_members
from pipeline.reconcile.report import ReconcileReport, build_report
from pipeline.runtime import cyclic_gc_paused
from schemas.records import Datasheet, ModelProfile, SourceConflict, Unit


def resolve(dataset: Dataset) -> list[ResolvedUnit]:
    """The units of a dataset (no changes to it): for tests and tools."""
    return resolve_units(gather_members(dataset, faction_aliases()))


def _with_unit_ids(dataset: Dataset, units: list[ResolvedUnit]) -> list[Datasheet]:
    unit_of = {id(m.sheet): u.unit_id for u in units for m in u.members}
    return [sheet.model_copy(update={"unit_id": unit_of[id(sheet)]}) for sheet in dataset.records(Datasheet)]


def _with_filled_profiles(dataset: Dataset, outcomes: list[UnitOutcome]) -> list[ModelProfile]:
    filled = {key: profile for o in outcomes for key, profile in o.filled.items()}
    return [filled.get(id(p), p) for p in dataset.records(ModelProfile)]


def reconcile_stage(dataset: Dataset) -> Staged[ReconcileReport]:
    """A new dataset with `Datasheet.unit_id` set, `units` and `source_conflicts`, missing statlines filled.

    The report gives match rates and conflict counts.
    """
    with cyclic_gc_paused():
        return _reconcile(dataset)


def _reconcile(dataset: Dataset) -> Staged[ReconcileReport]:
    units = resolve(dataset)
    outcomes = [reconcile_unit(u.unit_id, u.members, u.faction_key) for u in units]
    conflicts: list[SourceConflict] = [c for o in outcomes for c in o.conflicts]
    reconciled = dataset.replacing(
        {
            Datasheet: _with_unit_ids(dataset, units),
            ModelProfile: _with_filled_profiles(dataset, outcomes),
            Unit: [o.unit for o in outcomes],
            SourceConflict: conflicts,
        }
    )
    filled = sum(1 for o in outcomes for p in o.filled.values() if p.stats_from)
    return Staged(reconciled, build_report(units, conflicts, filled))
