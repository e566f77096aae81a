"""Read any mix of input paths into one Dataset, each with its format's parser, and report on every file."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pipeline.dataset import Dataset
from pipeline.errors import InputFormatError
from pipeline.normalise.derived import with_derived_defences
from pipeline.sources import bsdata, detect_format, page, wahapedia
from pipeline.sources.report import ParseReport
from schemas.records import Record, Source, SourceFormat


class Parser(Protocol):
    """A format's `parse(path)`: its records; with a report, also one `FileReport` per file parsed."""

    def __call__(self, path: Path, report: ParseReport | None = None, /) -> Iterator[Record]: ...


#: format -> its subpackage's `parse(path)`.
PARSERS: dict[SourceFormat, Parser] = {
    "page_export": page.parse,
    "wahapedia_csv": wahapedia.parse,
    "bsdata": bsdata.parse,
}


def expand(path: Path, fmt: SourceFormat) -> list[Path]:
    """Page exports are parsed file by file; the other formats take their folder whole."""
    if fmt == "page_export" and path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix.lower() == ".txt")
    return [path]


def default_inputs(raw_dir: Path) -> list[Path]:
    """Inputs under raw/: every sub-folder whose format can be detected."""
    found = []
    for child in sorted(raw_dir.iterdir()) if raw_dir.is_dir() else []:
        if child.is_dir() and any(child.iterdir()):
            try:
                detect_format(child)
            except InputFormatError:
                continue
            found.append(child)
    return found


def portable_path(source_path: str, input_path: Path) -> str:
    """A source file's path relative to the folder holding the input (`wahapedia-10e/Datasheets.csv`).

    Published paths then do not depend on where the inputs lie or where the run started,
    so the same files give the same release bytes anywhere.
    """
    base = input_path.resolve().parent
    try:
        return Path(source_path).resolve().relative_to(base).as_posix()
    except ValueError:
        return Path(source_path).name


def _portable(record: Record, input_path: Path) -> Record:
    if isinstance(record, Source):
        return record.model_copy(update={"path": portable_path(record.path, input_path)})
    return record


@dataclass(frozen=True)
class ParseResult:
    """Every input's records, and what parsing gave per file (`report.as_dict()` goes in the manifest)."""

    dataset: Dataset
    report: ParseReport


def read_inputs(paths: Sequence[Path]) -> ParseResult:
    """Parse every input into one Dataset (formats detected per path), with a report per file.

    Defensive values read from text (halve damage, a better invulnerable save in melee) are
    derived here, once for every source (`normalise.derived.with_derived_defences`).
    """
    records: list[Record] = []
    report = ParseReport()
    for path in paths:
        fmt = detect_format(path)
        parse = PARSERS[fmt]
        for item in expand(path, fmt):
            records.extend(_portable(record, path) for record in parse(item, report))
    return ParseResult(with_derived_defences(Dataset(records)), report)
