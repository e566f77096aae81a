"""Read any mix of input paths into one Dataset, each with its format's parser, and report on every file."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pipeline.dataset import Dataset
from pipeline.errors import InputFormatError
from pipeline.normalise.derived import with_derived_defences
from pipeline.runtime import available_cpus, busy_elsewhere, cyclic_gc_paused
from pipeline.sources import bsdata, detect_format, page, wahapedia
from pipeline.sources.bsdata.filecache import folder_parser, load_folder_parse, parse_folder
from pipeline.sources.bsdata.parser import BsdataParser
from pipeline.sources.cached import load_parsed, parsed_key, store_parsed
from pipeline.sources.forked import ForkedJobs, ForkedWrites
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


def read_inputs(paths: Sequence[Path], cache: Path | None = None, workers: int | None = None) -> ParseResult:
    """Parse every input into one Dataset (formats detected per path), with a report per file; with a
    cache folder, an item (page file, Wahapedia or BSData folder) unchanged since it was cached is not parsed,
    and in a changed BSData folder only the changed catalogues are (docs/sources.md#incremental).
    BSData catalogues are parsed on `workers` forked processes (default: the idle CPUs; 1: all here) while
    this one parses the other items; results are merged in input order, so they do not depend on `workers`
    (docs/sources.md#parallel-parse).
    Defensive values read from text (halve damage, a better melee invulnerable save) are derived here, once
    for every source (`normalise.derived.with_derived_defences`)."""
    workers = idle_cpus() if workers is None else workers
    # the cyclic GC cost ≈ 20 % of the parse's CPU (docs/sources.md#parallel-parse); cache entries written on
    # forked processes are waited for once the records are merged
    with cyclic_gc_paused(), ForkedWrites() as writes:
        return _merged(_parsed_items(paths, cache, workers, writes.submit if workers > 1 else _write_here))


#: Writes a cache entry: here, or on a forked process (`ForkedWrites.submit`).
Keep = Callable[[Callable[[], None]], None]


def _write_here(write: Callable[[], None]) -> None:
    write()


def idle_cpus() -> int:
    """CPUs no other task keeps busy now (`runtime.busy_elsewhere`), at least one: on a busy box the forked
    parse costs CPU and gains no time, so it runs here (docs/sources.md)."""
    return max(1, round(available_cpus() - busy_elsewhere()))


def _parsed_items(paths: Sequence[Path], cache: Path | None, workers: int, keep: Keep) -> list[Outcome]:
    """Each item's outcome, in input order: BSData catalogues on forked processes, the rest here meanwhile (their
    cache entries written by `keep`)."""
    items = [(item, path, fmt) for path in paths for fmt in (detect_format(path),) for item in expand(path, fmt)]
    folders = {i: _folder(item, path, cache) for i, (item, path, fmt) in enumerate(items) if fmt == "bsdata"}
    jobs = [(i, file) for i, folder in folders.items() for file in folder.pending]
    jobs.sort(key=lambda job: -folders[job[0]].parser.weight(items[job[0]][0], job[1]))  # longest first
    processes = workers if workers > 1 else 0  # one per worker although this one works too: its items are shorter
    with ForkedJobs(lambda job: folders[job[0]].parser.sent_outcome(items[job[0]][0], job[1]), jobs, processes) as run:
        done = {i: _item(*items[i], cache, keep) for i in range(len(items)) if i not in folders}
        for job in jobs:
            folders[job[0]].parser.receive(job[1], run.result(job))
    for i, folder in folders.items():
        done[i] = folder.finish(*items[i][:2], cache)
    return [done[i] for i in range(len(items))]


Outcome = tuple["Parsed", list[str], list[str]]


def _merged(outcomes: list[Outcome]) -> ParseResult:
    records: list[Record] = []
    report = ParseReport()
    parsed: list[str] = []
    reused: list[str] = []
    for (item_records, files), item_parsed, item_reused in outcomes:
        records.extend(item_records)
        report.files.extend(files)
        parsed.extend(item_parsed)
        reused.extend(item_reused)
    return ParseResult(with_derived_defences(Dataset(records)), report, tuple(parsed), tuple(reused))


Parsed = tuple[list[Record], list[FileReport]]


@dataclass
class _BsdataItem:
    """A BSData item: taken whole from the cache (`hit`), or a parser and the files it still has to parse."""

    key: str = ""
    hit: Outcome | None = None
    parser: BsdataParser = field(default_factory=BsdataParser)
    pending: list[Path] = field(default_factory=list)

    def finish(self, item: Path, path: Path, cache: Path | None) -> Outcome:
        if self.hit is not None:
            return self.hit
        if cache is None:
            records = [_portable(record, path) for record in self.parser.parse(item)]
            assert self.parser.report is not None
            return (records, self.parser.report.files), [str(item)], []
        records, files, parsed, reused = parse_folder(item, cache, self.key, self.parser)
        return ([_portable(r, path) for r in records], files), parsed, reused


def _folder(item: Path, path: Path, cache: Path | None) -> _BsdataItem:
    """A BSData item's folder entry from the cache, else its parser with every catalogue loaded."""
    if cache is None:
        parser = BsdataParser(ParseReport())
        return _BsdataItem(parser=parser, pending=parser.pending(item))
    key = parsed_key(item, path, "bsdata")
    hit = load_folder_parse(cache, key)
    if hit is not None:
        return _BsdataItem(key, (([_portable(r, path) for r in hit[0]], hit[1]), [], [str(item)]))
    parser = folder_parser(cache)
    return _BsdataItem(key, parser=parser, pending=parser.pending(item))


def _item(item: Path, path: Path, fmt: SourceFormat, cache: Path | None, keep: Keep) -> Outcome:
    """(records, file reports) of one page file or Wahapedia folder, with the items parsed and those taken
    from the cache; `keep` writes the cache entry of one parsed (`ForkedWrites.submit`: on a forked process)."""
    if cache is None:
        return _parse_item(item, path, fmt), [str(item)], []
    key = parsed_key(item, path, fmt)
    hit = load_parsed(cache, key)
    if hit is not None:
        return hit, [], [str(item)]
    parsed = _parse_item(item, path, fmt)
    keep(lambda: store_parsed(cache, key, *parsed))
    return parsed, [str(item)], []


def _parse_item(item: Path, path: Path, fmt: SourceFormat) -> Parsed:
    report = ParseReport()
    records = [_portable(record, path) for record in PARSERS[fmt](item, report)]
    return records, report.files
