"""Reading the Wahapedia export's tables (pipe-delimited, no quoting), and curating or quarantining every row
(docs/sources.md#wahapedia-accounting)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pipeline import config
from pipeline.normalise.text import decode_lines_strict
from pipeline.sources.accounting import RowLedger, invalid_reason, quarantine_row
from pipeline.sources.inputs import InputRefused, check_rows, field_too_long, read_input
from schemas.records import QuarantineRow, Record, Source, SourceFormat

FORMAT: SourceFormat = "wahapedia_csv"
DELIMITER = "|"


INVALID_UTF8 = "csv: invalid UTF-8"
TRUNCATED = "csv: truncated row (no trailing |)"
WRONG_FIELD_COUNT = "csv: wrong field count"

#: Columns each table must have (others are ignored); a missing one rejects the file.
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "Abilities.csv": ("id", "name", "faction_id", "description"),
    "Datasheets.csv": ("id", "name", "faction_id", "source_id", "role"),
    "Datasheets_abilities.csv": ("datasheet_id", "line", "ability_id", "name", "description", "type"),
    "Datasheets_detachment_abilities.csv": ("datasheet_id", "detachment_ability_id"),
    "Datasheets_enhancements.csv": ("datasheet_id", "enhancement_id"),
    "Datasheets_keywords.csv": ("datasheet_id", "keyword", "model", "is_faction_keyword"),
    "Datasheets_leader.csv": ("leader_id", "attached_id"),
    "Datasheets_models.csv": ("datasheet_id", "line", "name", "M", "T", "Sv", "inv_sv", "W", "Ld", "OC"),
    "Datasheets_models_cost.csv": ("datasheet_id", "line", "description", "cost"),
    "Datasheets_options.csv": ("datasheet_id", "line", "description"),
    "Datasheets_stratagems.csv": ("datasheet_id", "stratagem_id"),
    "Datasheets_unit_composition.csv": ("datasheet_id", "line", "description"),
    "Datasheets_wargear.csv": ("datasheet_id", "line", "name", "range", "type", "A", "BS_WS", "S", "AP", "D"),
    "Detachment_abilities.csv": ("id", "faction_id", "name", "description"),
    "Enhancements.csv": ("id", "faction_id", "name", "cost", "description"),
    "Factions.csv": ("id", "name"),
    "Source.csv": ("id", "name"),
    "Stratagems.csv": ("id", "faction_id", "name", "cp_cost", "description"),
}


def source_id_of(file_name: str) -> str:
    return f"{FORMAT}:{file_name}"


class Row:
    """One data line: its 1-based line number, the raw text and its fields.

    A plain slotted class (not a dataclass) because the export has 120k rows and
    this is built once per row; fields are looked up through the table's header index.
    """

    __slots__ = ("fields", "index", "line", "raw")

    def __init__(self, line: int, raw: str, fields: list[str], index: dict[str, int]) -> None:
        self.line = line
        self.raw = raw
        self.fields = fields
        self.index = index

    def get(self, column: str) -> str:
        """The cell of a column ('' for a column the file does not have)."""
        position = self.index.get(column)
        return "" if position is None else self.fields[position]


@dataclass
class Table:
    """A file's rows that have the right shape, plus its ledger; `refused` says why a file that is
    there was not read (`inputs.InputRefused`), `sha256` is of the bytes read."""

    path: Path
    ledger: RowLedger
    rows: list[Row] = field(default_factory=list)
    present: bool = True
    refused: str | None = None
    sha256: str = ""

    @property
    def name(self) -> str:
        return self.path.name

    def reject(self, row: Row, reason: str) -> QuarantineRow:
        """Quarantine a row of this file (its line and raw text)."""
        return self.ledger.quarantine(row.line, reason, row.raw, self.name)


def _split(line: str, width: int) -> list[str] | None:
    """Fields of a line with `width` columns and its trailing `|`, or None (see `_rejection`)."""
    parts = line.split(DELIMITER)
    if len(parts) == width + 1 and parts[-1].strip() == "":
        return parts[:-1]
    return None


def _rejection(line: str, width: int, missing: list[str], undecodable: bool) -> str:
    """Why a line was refused. Every line of the export ends with `|`, so a line with the
    header's field count but no trailing `|` was cut inside its last field (`360` -> `3`):
    its last value cannot be trusted, so it is quarantined, never curated."""
    if undecodable:
        return INVALID_UTF8
    if missing:
        return f"csv: missing column {missing[0]}"
    if line.count(DELIMITER) == width - 1:
        return TRUNCATED
    return WRONG_FIELD_COUNT


def _header(text: str) -> list[str]:
    parts = text.split(DELIMITER)
    if parts and parts[-1].strip() == "":
        parts = parts[:-1]
    return [p.strip() for p in parts]


def _lines(data: bytes) -> tuple[list[tuple[int, str]], set[int]]:
    """Non-blank lines with 1-based numbers (BOM removed), and the numbers of those not in UTF-8.

    Decoding is strict: a bad byte must not become U+FFFD in a curated row. A clean file
    (the usual case) is decoded in one go; otherwise each line on its own, so a bad byte
    costs its line only, which comes back with the bytes escaped (`\\xff`) for the quarantine.
    """
    texts, undecodable = decode_lines_strict(data)
    lines = [(n, line.rstrip("\r")) for n, line in enumerate(texts, start=1) if line.strip()]
    return lines, undecodable


def read_table(folder: Path, file_name: str) -> tuple[Table, list[QuarantineRow]]:
    """Read one file; rows of the wrong shape come back as quarantine records."""
    path = folder / file_name
    table = Table(path=path, ledger=RowLedger(source_id_of(file_name), FORMAT))
    if not os.path.lexists(path):
        table.present = False
        return table, []
    try:
        read = read_input(path)
        lines, undecodable = _lines(read.data)
        check_rows(len(lines) - 1, path)
    except InputRefused as refused:
        table.present, table.refused = False, refused.reason
        return table, []
    table.sha256 = read.sha256
    header = _header(lines[0][1]) if lines else []
    table.ledger.rows_in = max(len(lines) - 1, 0)
    return table, _sort_rows(table, header, lines[1:], undecodable)


def _sort_rows(
    table: Table, header: list[str], lines: list[tuple[int, str]], undecodable: set[int]
) -> list[QuarantineRow]:
    """Rows of the right shape go to `table.rows`; the others are quarantined and returned."""
    index = {column: position for position, column in enumerate(header)}
    missing = [c for c in REQUIRED_COLUMNS.get(table.name, ()) if c not in index]
    width = len(header)
    rejected: list[QuarantineRow] = []
    cap = config.MAX_INPUT_FIELD_CHARS
    for number, line in lines:
        bad = number in undecodable
        fields = None if missing or bad else _split(line, width)
        reason = _rejection(line, width, missing, bad) if fields is None else None
        if fields is not None and len(line) > cap:
            reason = _long_field(fields, header, cap)
        if reason is not None:
            rejected.append(table.ledger.quarantine(number, reason, line, table.name))
        else:
            table.rows.append(Row(number, line, fields or [], index))
    return rejected


def _long_field(fields: list[str], header: list[str], cap: int) -> str | None:
    """`csv: field <column> too long (...)` for the first field above the cap, else None."""
    for column, value in zip(header, fields, strict=True):
        reason = field_too_long(f"csv: field {column[:50]}", len(value), cap)
        if reason is not None:
            return reason
    return None


def missing_file_record(table: Table) -> QuarantineRow:
    """A table the export should have but does not (or that was refused): reported (in its report
    too), never fatal; nothing of a refused file is kept."""
    reason = table.refused or "csv: file missing"
    row = quarantine_row(table.ledger.source_id, None, reason, "", table.name)
    table.ledger.tally([row])
    return row


def source_record(table: Table, source_date: str | None) -> Source:
    """The `sources` row of one file, with its accounting."""
    return table.ledger.source(str(table.path), table.sha256, source_date)


class Keyed(NamedTuple):
    """What one row gives: its key (None: the table has none), its records, and what to learn once it is kept."""

    key: tuple[str | None, ...] | None
    records: list[Record]
    learn: Callable[[], None] | None = None


def curate_keyed(table: Table, what: str, build: Callable[[Row], Keyed]) -> Iterator[Record]:
    """Run `build` on every row: the row is curated with the records it gives, or quarantined
    (`<what>: ...`) when `build` raises ValueError or gives a key a kept row already has
    (`duplicate key`: a repeated row is never merged silently). Only a kept row's `learn` runs."""
    seen: set[tuple[str | None, ...]] = set()
    for row in table.rows:
        try:
            key, records, learn = build(row)
            if key is not None and key in seen:
                raise ValueError("duplicate key")
        except ValueError as error:
            yield table.reject(row, invalid_reason(what, error))
            continue
        if key is not None:
            seen.add(key)
        if learn is not None:
            learn()
        table.ledger.curate(records)
        yield from records


#: Builds the records of one row; raises ValueError (short message) when it cannot.
RowBuilder = Callable[[Row], Iterable[Record]]


def curate_rows(table: Table, what: str, build: RowBuilder) -> Iterator[Record]:
    """Run `build` on every row: its records are curated, its failure (`<what>: ...`) quarantined."""
    return curate_keyed(table, what, lambda row: Keyed(None, list(build(row))))
