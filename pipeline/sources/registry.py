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
from pipeline.sources.bsdata.filecache import BsdataFileCache
from pipeline.sources.bsdata.parser import BsdataParser
from pipeline.sources.cached import load_parsed, parsed_key, store_parsed
from pipeline.sources.report import FileReport, ParseReport
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
    """Every input's records, and what parsing gave per file (`report.as_dict()` goes in the manifest).
    `parsed` and `reused`: the items parsed and those taken from the cache (not published)."""

    dataset: Dataset
    report: ParseReport
    parsed: tuple[str, ...] = ()
    reused: tuple[str, ...] = ()


def read_inputs(paths: Sequence[Path], cache: Path | None = None) -> ParseResult:
    """Parse every input into one Dataset (formats detected per path), with a report per file; with a
    cache folder, an item (page file, Wahapedia or BSData folder) unchanged since it was cached is not parsed,
    and in a changed BSData folder only the changed catalogues are (docs/sources.md#incremental).
    Defensive values read from text (halve damage, a better melee invulnerable save) are derived here, once
    for every source (`normalise.derived.with_derived_defences`)."""
    records: list[Record] = []
    report = ParseReport()
    parsed: list[str] = []
    reused: list[str] = []
    for path in paths:
        fmt = detect_format(path)
        for item in expand(path, fmt):
            key = parsed_key(item, path, fmt) if cache is not None else ""
            hit = load_parsed(cache, key) if cache is not None else None
            if hit is None:
                hit, item_parsed, item_reused = _parse_item(item, path, fmt, cache)
                if cache is not None:
                    store_parsed(cache, key, *hit)
                parsed.extend(item_parsed)
                reused.extend(item_reused)
            else:
                reused.append(str(item))
            records.extend(hit[0])
            report.files.extend(hit[1])
    return ParseResult(with_derived_defences(Dataset(records)), report, tuple(parsed), tuple(reused))


def _parse_item(
    item: Path, path: Path, fmt: SourceFormat, cache: Path | None
) -> tuple[tuple[list[Record], list[FileReport]], list[str], list[str]]:
    """(records, file reports), the files parsed and those taken from the cache (BSData catalogues)."""
    report = ParseReport()
    if fmt == "bsdata" and cache is not None:
        parser = BsdataParser(report, BsdataFileCache(cache))
        records = [_portable(record, path) for record in parser.parse(item)]
        return (records, report.files), parser.parsed, parser.reused
    records = [_portable(record, path) for record in PARSERS[fmt](item, report)]
    return (records, report.files), [str(item)], []
