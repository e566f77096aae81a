"""What parsing gave, per input file, in one shape for every format; the run puts it in the manifest."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schemas.records import SourceFormat


@dataclass(frozen=True)
class FileReport:
    """One input file: its rows in / curated / quarantined, its records per table, its quarantine
    rows per reason, and what only its format knows (`counts`, `notes`; BSData's self-`checks` and
    `findings`, values published after a loose reading with their raw text: docs/sources.md#reports)."""

    source_id: str
    format: SourceFormat
    rows_in: int
    rows_curated: int
    rows_quarantined: int
    records: Mapping[str, int] = field(default_factory=dict)
    quarantine: Mapping[str, int] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    checks: tuple[Mapping[str, Any], ...] = ()
    findings: tuple[Mapping[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "format": self.format,
            "rows_in": self.rows_in,
            "rows_curated": self.rows_curated,
            "rows_quarantined": self.rows_quarantined,
            "records": dict(sorted(self.records.items())),
            "quarantine": dict(sorted(self.quarantine.items())),
            "counts": dict(sorted(self.counts.items())),
            "notes": list(self.notes),
            "checks": [dict(c) for c in self.checks],
            "findings": [dict(f) for f in self.findings],
        }


@dataclass
class ParseReport:
    """The reports of every parsed file, in parse order."""

    files: list[FileReport] = field(default_factory=list)

    def add(self, report: FileReport) -> None:
        self.files.append(report)

    def totals(self) -> dict[str, dict[str, int]]:
        """Per format: files, rows in / curated / quarantined."""
        totals: dict[str, Counter[str]] = {}
        for report in self.files:
            total = totals.setdefault(report.format, Counter())
            total.update(
                files=1,
                rows_in=report.rows_in,
                rows_curated=report.rows_curated,
                rows_quarantined=report.rows_quarantined,
            )
        return {fmt: dict(sorted(total.items())) for fmt, total in sorted(totals.items())}

    def as_dict(self) -> dict[str, Any]:
        return {"totals": self.totals(), "files": [report.as_dict() for report in self.files]}
