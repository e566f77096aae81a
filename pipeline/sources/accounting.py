"""Row accounting shared by the three formats: one ledger per file, one reason format, one quarantine row.

Every input row ends curated or quarantined, never lost; the rules are in docs/sources.md#accounting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from pydantic import ValidationError

from pipeline.errors import PipelineError
from pipeline.sources.report import FileReport
from schemas.records import QuarantineRow, Record, Source, SourceFormat

#: The stage every parser's quarantine rows name.
STAGE = "parse"
#: Characters of raw input a quarantine row keeps; longer text is cut there and ends with `...`.
MAX_RAW = 2000
#: Characters of an error's own message a reason keeps (validation messages are short already).
MAX_MESSAGE = 200


class AccountingError(PipelineError):
    """A file's rows do not add up: a parser bug, never bad input."""


def clip(text: str, limit: int = MAX_RAW) -> str:
    """`text`, or its first `limit` characters and `...` (cutting a clipped text again changes nothing)."""
    return text if len(text) <= limit else text[:limit] + "..."


def invalid_reason(table: str, error: ValueError, where: str = "") -> str:
    """Why a row could not become a `table` record: `<table>: <field>: <message>`.

    A validation error gives its first error's field and message; any other ValueError its own
    message (`<table>: <message>`). `where` names what failed when the line alone cannot
    (`weapons: strength: ... (profile 'Zzap gun' of unit 'Battlewagon')`).
    """
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        detail = f"{'.'.join(str(part) for part in first['loc']) or 'row'}: {first['msg']}"
    else:
        detail = str(error)[:MAX_MESSAGE] or type(error).__name__
    return f"{table}: {detail} ({where})" if where else f"{table}: {detail}"


@cache
def _tables_by_model() -> dict[str, str]:
    """Record model name -> its table (`Weapon` -> `weapons`)."""
    found: dict[str, str] = {}
    pending: list[type[Record]] = [Record]
    while pending:
        model = pending.pop()
        found[model.__name__] = getattr(model, "TABLE", "")
        pending.extend(model.__subclasses__())
    return found


def record_table(error: ValueError, default: str) -> str:
    """The table of the record a validation error is about (its model's table), else `default`."""
    if isinstance(error, ValidationError):
        return _tables_by_model().get(error.title) or default
    return default


def quarantine_row(source_id: str, line: int | None, reason: str, raw: str, table: str | None) -> QuarantineRow:
    """The one way a parser makes a quarantine row: stage `parse`, raw text (and reason) clipped to `MAX_RAW`."""
    return QuarantineRow(source_id=source_id, line=line, stage=STAGE, reason=clip(reason), raw=clip(raw), table=table)


def refused_file(
    source_id: str, fmt: SourceFormat, reason: str, table: str = "file"
) -> tuple[QuarantineRow, FileReport]:
    """A file refused whole (`inputs.InputRefused`, too many rows): one quarantine row with no raw text
    (nothing of the file is published) and a report with no rows; no `sources` row, as for a missing file."""
    row = quarantine_row(source_id, None, reason, "", table)
    ledger = RowLedger(source_id, fmt)
    ledger.tally([row])
    return row, ledger.report(notes=[reason])


@dataclass
class RowLedger:
    """One input file's rows: each counted once, curated or quarantined, so that
    `rows_in == rows_curated + rows_quarantined`; records and reasons are tallied for its report."""

    source_id: str
    format: SourceFormat
    rows_in: int = 0
    rows_curated: int = 0
    rows_quarantined: int = 0
    records: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)

    def curate(self, records: Iterable[Record] = ()) -> None:
        """One row curated; `records` (never quarantine rows) are what it gave."""
        self.rows_curated += 1
        for record in records:
            self.records[record.TABLE] += 1

    def quarantined(self, row: QuarantineRow) -> QuarantineRow:
        """One row quarantined, as `row` (returned, to be yielded)."""
        self.rows_quarantined += 1
        self.tally([row])
        return row

    def quarantine(self, line: int | None, reason: str, raw: str, table: str | None) -> QuarantineRow:
        """One row quarantined: its quarantine row (returned, to be yielded)."""
        return self.quarantined(quarantine_row(self.source_id, line, reason, raw, table))

    def tally(self, records: Iterable[Record]) -> None:
        """Count records per table and quarantine rows per reason (rows are counted by the methods above)."""
        for record in records:
            if isinstance(record, QuarantineRow):
                self.reasons[record.reason] += 1
            else:
                self.records[record.TABLE] += 1

    @property
    def balanced(self) -> bool:
        return self.rows_in == self.rows_curated + self.rows_quarantined

    def source(self, path: str, sha256: str, source_date: str | None = None) -> Source:
        """The file's `sources` row; an unbalanced ledger is a parser bug and raises."""
        if not self.balanced:
            raise AccountingError(
                f"rows do not add up: {self.rows_in} in, {self.rows_curated} curated, "
                f"{self.rows_quarantined} quarantined",
                path=path,
            )
        return Source(
            source_id=self.source_id,
            format=self.format,
            path=path,
            sha256=sha256,
            rows_in=self.rows_in,
            rows_curated=self.rows_curated,
            rows_quarantined=self.rows_quarantined,
            source_date=source_date,
        )

    def report(self, counts: Mapping[str, int] | None = None, notes: Iterable[str] = ()) -> FileReport:
        return FileReport(
            source_id=self.source_id,
            format=self.format,
            rows_in=self.rows_in,
            rows_curated=self.rows_curated,
            rows_quarantined=self.rows_quarantined,
            records=dict(self.records),
            quarantine=dict(self.reasons),
            counts=dict(counts or {}),
            notes=tuple(notes),
        )
