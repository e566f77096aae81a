"""How many datasheets with weapons got a default loadout: per source format, per faction, and the
unresolved ones per reason class (the run's `reports.loadouts` in the manifest)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from schemas.records import Datasheet, DatasheetLoadout, LoadoutIssue


@dataclass(frozen=True)
class Rate:
    datasheets: int
    resolved: int

    @property
    def rate(self) -> float:
        return round(self.resolved / self.datasheets, 4) if self.datasheets else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"datasheets": self.datasheets, "resolved": self.resolved, "rate": self.rate}


@dataclass(frozen=True)
class LoadoutReport:
    """Datasheets with weapons (their own or a copy's home's) and how many resolved; `unresolved` counts
    datasheets per reason class (one datasheet may have several)."""

    by_format: Mapping[str, Rate]
    by_faction: Mapping[str, Mapping[str, Rate]]
    unresolved: Mapping[str, Mapping[str, int]]
    rows: int
    copies: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "by_format": {k: v.as_dict() for k, v in sorted(self.by_format.items())},
            "by_faction": {
                f: {k: v.as_dict() for k, v in sorted(rates.items())} for f, rates in sorted(self.by_faction.items())
            },
            "unresolved": {f: dict(sorted(c.items())) for f, c in sorted(self.unresolved.items())},
            "rows": self.rows,
            "copies": self.copies,
        }


def loadout_report(
    sheets: Iterable[tuple[Datasheet, str]],
    rows: Iterable[DatasheetLoadout],
    issues: Iterable[LoadoutIssue],
    copies: int,
) -> LoadoutReport:
    """`sheets`: each datasheet with weapons and its source format."""
    row_list = list(rows)
    unresolved: dict[str, set[str]] = defaultdict(set)
    for issue in issues:
        if issue.severity == "unresolved":
            unresolved[issue.datasheet_id].add(issue.reason)
    totals: Counter[str] = Counter()
    done: Counter[str] = Counter()
    faction_totals: Counter[tuple[str, str]] = Counter()
    faction_done: Counter[tuple[str, str]] = Counter()
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for sheet, fmt in sheets:
        ok = sheet.datasheet_id not in unresolved
        totals[fmt] += 1
        faction_totals[(fmt, sheet.faction)] += 1
        done[fmt] += ok
        faction_done[(fmt, sheet.faction)] += ok
        reasons[fmt].update(unresolved.get(sheet.datasheet_id, ()))
    by_faction: dict[str, dict[str, Rate]] = defaultdict(dict)
    for (fmt, faction), total in faction_totals.items():
        by_faction[fmt][faction] = Rate(total, faction_done[(fmt, faction)])
    return LoadoutReport(
        {fmt: Rate(n, done[fmt]) for fmt, n in totals.items()}, dict(by_faction), dict(reasons), len(row_list), copies
    )
