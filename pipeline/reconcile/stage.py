"""Reconcile stage: the same unit across sources gets one `unit_id` and a golden layer (`units`,
`unit_profiles`, `unit_weapons`, `unit_points`), a list of disagreements (`source_conflicts`), and
datasheets without a statline (page exports) borrow the golden one — so the damage matrix, which
only targets profiles with a statline, can use them. Stratagems of all sources become one row
per distinct stratagem.

Rules: docs/reconcile.md.
"""

from __future__ import annotations

from collections import defaultdict

from pipeline.dataset import Dataset, Staged
from pipeline.reconcile.composition import Counted, parse_lines
from pipeline.reconcile.factions import catalogue_display, display_names
from pipeline.reconcile.golden import UnitContext, UnitOutcome, reconcile_unit
from pipeline.reconcile.keys import catalogue_faction, faction_aliases, faction_key
from pipeline.reconcile.matching import ResolvedUnit, resolve_units
from pipeline.reconcile.members import Member, gather_members
from pipeline.reconcile.report import ReconcileReport, build_report
from pipeline.reconcile.stratagems import StratagemMerge, merge_stratagems
from pipeline.runtime import cyclic_gc_paused
from schemas.golden import IdAlias, UnitPoints, UnitProfile, UnitWeapon
from schemas.records import (
    CompositionLine,
    Datasheet,
    DatasheetStratagem,
    ModelProfile,
    SourceConflict,
    Stratagem,
    Unit,
)


def resolve(dataset: Dataset) -> list[ResolvedUnit]:
    """The units of a dataset (no changes to it): for tests and tools."""
    return resolve_units(gather_members(dataset, faction_aliases()))


def _context(dataset: Dataset, units: list[ResolvedUnit]) -> UnitContext:
    aliases = faction_aliases()
    spellings: list[tuple[str, str]] = []
    for unit in units:
        for member in unit.members:
            spellings.append((faction_key(member.sheet.faction, aliases), member.sheet.faction))
            catalogue = catalogue_faction(member.sheet.source_id)
            if catalogue is not None:
                spellings.append((faction_key(catalogue, aliases), catalogue_display(catalogue)))
    lines: dict[str, list[str]] = defaultdict(list)
    for line in sorted(dataset.records(CompositionLine), key=lambda c: (c.datasheet_id, c.position)):
        lines[line.datasheet_id].append(line.text)
    composition: dict[str, list[Counted]] = {k: parse_lines(v) for k, v in lines.items()}
    return UnitContext(
        faction_names=display_names(spellings),
        unit_of={m.datasheet_id: u.unit_id for u in units for m in u.members},
        composition=composition,
    )


def _with_unit_ids(dataset: Dataset, units: list[ResolvedUnit]) -> list[Datasheet]:
    found: dict[int, Member] = {id(m.sheet): m for u in units for m in u.members}
    unit_of = {id(m.sheet): u.unit_id for u in units for m in u.members}
    return [
        sheet.model_copy(update={"unit_id": unit_of[id(sheet)], "copy_of": found[id(sheet)].copy_of})
        for sheet in dataset.records(Datasheet)
    ]


def _with_filled_profiles(dataset: Dataset, outcomes: list[UnitOutcome]) -> list[ModelProfile]:
    filled = {key: profile for o in outcomes for key, profile in o.filled.items()}
    return [filled.get(id(p), p) for p in dataset.records(ModelProfile)]


def reconcile_stage(dataset: Dataset) -> Staged[ReconcileReport]:
    """A new dataset with `Datasheet.unit_id` set, the golden tables and `source_conflicts`, missing
    statlines filled, stratagems merged across sources (the merged ids in `id_aliases`).

    The report gives match rates and conflict counts.
    """
    with cyclic_gc_paused():
        return _reconcile(dataset)


def _reconcile(dataset: Dataset) -> Staged[ReconcileReport]:
    units = resolve(dataset)
    context = _context(dataset, units)
    outcomes = [reconcile_unit(u, context) for u in units]
    conflicts: list[SourceConflict] = [c for o in outcomes for c in o.conflicts]
    strategems: StratagemMerge = merge_stratagems(dataset)
    reconciled = dataset.replacing(
        {
            Datasheet: _with_unit_ids(dataset, units),
            ModelProfile: _with_filled_profiles(dataset, outcomes),
            Unit: [o.unit for o in outcomes],
            UnitProfile: [p for o in outcomes for p in o.profiles],
            UnitWeapon: [w for o in outcomes for w in o.weapons],
            UnitPoints: [p for o in outcomes for p in o.points],
            SourceConflict: conflicts,
            Stratagem: strategems.stratagems,
            DatasheetStratagem: strategems.links,
            IdAlias: strategems.aliases,
        }
    )
    filled = sum(1 for o in outcomes for p in o.filled.values() if p.stats_from)
    return Staged(reconciled, build_report(units, conflicts, filled, strategems.report))
