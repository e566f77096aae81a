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
from schemas.records import SourceConflict


def _rate(matched: int, total: int) -> float | None:
    return round(matched / total, 4) if total else None


def match_rate(units: Sequence[ResolvedUnit], fmt: str, other: str) -> dict[str, Any]:
    """How many datasheets of `fmt` found a datasheet of `other`, and the reverse, per faction.

    Only factions where `fmt` has datasheets count: a source that covers a few
    factions is not penalised for the factions it does not cover.
    """
    factions = sorted({u.faction_key for u in units if fmt in u.formats})
    per_faction: dict[str, dict[str, Any]] = {}
    for faction in factions:
        in_faction = [u for u in units if u.faction_key == faction]
        row: dict[str, Any] = {}
        for side in (fmt, other):
            sheets = [m for u in in_faction for m in u.members if m.fmt == side]
            matched = [m for u in in_faction if {fmt, other} <= u.formats for m in u.members if m.fmt == side]
            row[side] = {"datasheets": len(sheets), "matched": len(matched), "rate": _rate(len(matched), len(sheets))}
        per_faction[faction] = row
    return {"factions": per_faction, "total": _total(per_faction, (fmt, other))}


def _total(per_faction: dict[str, dict[str, Any]], sides: tuple[str, str]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for side in sides:
        sheets = sum(row[side]["datasheets"] for row in per_faction.values())
        matched = sum(row[side]["matched"] for row in per_faction.values())
        total[side] = {"datasheets": sheets, "matched": matched, "rate": _rate(matched, sheets)}
    return total


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
    conflicts: int
    units_with_conflicts: int
    top_conflict_fields: dict[str, int]
    profiles_filled: int
    match_rates: dict[str, dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_report(units: Sequence[ResolvedUnit], conflicts: Sequence[SourceConflict], filled: int) -> ReconcileReport:
    formats = sorted({m.fmt for u in units for m in u.members})
    families = Counter(field_family(c.field) for c in conflicts)
    return ReconcileReport(
        datasheets=sum(len(u.members) for u in units),
        units=len(units),
        units_by_source_count=dict(sorted(Counter(len(u.formats) for u in units).items())),
        matched_by=dict(sorted(Counter(u.matched_by for u in units).items())),
        conflicts=len(conflicts),
        units_with_conflicts=len({c.unit_id for c in conflicts}),
        top_conflict_fields=dict(families.most_common(15)),
        profiles_filled=filled,
        match_rates={f"{a}~{b}": match_rate(units, a, b) for a in formats for b in formats if a < b},
    )
