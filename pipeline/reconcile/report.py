"""Figures of a reconciliation run: match rates, conflict counts, filled statlines.

The report is published in the manifest, so it holds counts only (no timings):
the same inputs give the same report.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pipeline.reconcile.matching import ResolvedUnit
from pipeline.reconcile.rates import match_rate
from schemas.records import SourceConflict


def field_family(field: str) -> str:
    """`weapon:Bolt pistol:skill` -> `weapon:skill`; statline fields stay as they are."""
    return re.sub(r"^(weapon|model):.*:([^:]+)$", r"\1:\2", field)


@dataclass(frozen=True)
class ReconcileReport:
    """Match and conflict figures of one reconciliation (JSON-ready through `as_dict`)."""

    datasheets: int
    units: int
    units_by_source_count: dict[int, int]
    matched_by: dict[str, int]
    legend_units: dict[str, int]
    copies: int
    conflicts: int
    units_with_conflicts: int
    top_conflict_fields: dict[str, int]
    profiles_filled: int
    match_rates: dict[str, dict[str, Any]]
    stratagems: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_report(
    units: Sequence[ResolvedUnit], conflicts: Sequence[SourceConflict], filled: int, stratagems: dict[str, Any]
) -> ReconcileReport:
    formats = sorted({m.fmt for u in units for m in u.members})
    families = Counter(field_family(c.field) for c in conflicts)
    return ReconcileReport(
        datasheets=sum(len(u.members) for u in units),
        units=len(units),
        units_by_source_count=dict(sorted(Counter(len(u.formats) for u in units).items())),
        matched_by=dict(sorted(Counter(u.matched_by for u in units).items())),
        legend_units=dict(sorted(Counter(u.legend for u in units if u.legend).items())),
        copies=sum(1 for u in units for m in u.members if m.copy_of is not None),
        conflicts=len(conflicts),
        units_with_conflicts=len({c.unit_id for c in conflicts}),
        top_conflict_fields=dict(families.most_common(15)),
        profiles_filled=filled,
        match_rates={f"{a}~{b}": match_rate(units, a, b) for a in formats for b in formats if a < b},
        stratagems=stratagems,
    )
