"""BattleScribe (BSData) `.cat` / `.gst` catalogues -> contract records, file by file, every unit-level
entry, rule and bad fragment accounted for (docs/sources.md#bsdata-catalogues)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from pipeline.errors import InputFormatError
from pipeline.sources.accounting import RowLedger, invalid_reason, quarantine_row, record_table
from pipeline.sources.bsdata.checks import CheckLedger, check_records, merge_ledger
from pipeline.sources.bsdata.composition import CompositionReader
from pipeline.sources.bsdata.frame import UnitFrame, raw_xml
from pipeline.sources.bsdata.index import (
    SUFFIXES,
    BsdataFolder,
    Catalogue,
    Element,
    Scope,
    children,
    is_hidden,
    load_catalogue,
    load_folder,
    local_name,
)
from pipeline.sources.bsdata.loadout import LoadoutReader
from pipeline.sources.bsdata.points import points_tiers, points_types
from pipeline.sources.bsdata.positions import FolderPositions, decode_ledger, encode_ledger
from pipeline.sources.bsdata.text import clean_name, rule_text
from pipeline.sources.bsdata.units import Finding, UnitBuilder
from pipeline.sources.bsdata.walk import LinkProblem, UnitContent, UnitWalker
from pipeline.sources.report import FileReport, ParseReport
from schemas.records import Datasheet, ModelProfile, QuarantineRow, Record, RuleBlock, Source, SourceCheck

CURATED_TYPES = (Datasheet, RuleBlock)
#: Characters of a whole unit entry kept as its quarantined raw text (its opening names it).
UNIT_EXCERPT = 500


@dataclass
class FileStats:
    """What one file's walk skipped on purpose, and the catalogues it links that are not available."""

    source_id: str
    missing_catalogues: list[str] = field(default_factory=list)
    hidden_fragments: int = 0
    purchases_skipped: int = 0
    points_modifiers_skipped: int = 0
    non_unit_root_entries: int = 0
    force_only_skipped: int = 0
    unlocked_elements: int = 0
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "hidden_fragments": self.hidden_fragments,
            "purchases_skipped": self.purchases_skipped,
            "points_modifiers_skipped": self.points_modifiers_skipped,
            "non_unit_root_entries": self.non_unit_root_entries,
            "force_only_skipped": self.force_only_skipped,
            "unlocked_elements": self.unlocked_elements,
            "values_read_loosely": len(self.findings),
        }

    def notes(self) -> list[str]:
        return [f"linked catalogue not available: {name}" for name in self.missing_catalogues]


def root_entries(root: Element) -> list[Element]:
    """A file's root entries and links to entries: the units it may publish."""
    links = [link for link in children(root, "entryLinks", "entryLink") if link.get("type") != "selectionEntryGroup"]
    return children(root, "selectionEntries", "selectionEntry") + links


class _FileRun:
    """Parsing of one catalogue file: yields its records and keeps its accounting."""

    def __init__(self, folder: BsdataFolder, catalogue: Catalogue, ledger: CheckLedger) -> None:
        self.catalogue = load_catalogue(catalogue)
        self.ledger = ledger
        self.root: Element = catalogue.root  # None only for unreadable files, which `run` handles first
        self.folder = folder
        self.stats = FileStats(catalogue.source_id)
        self.rows = RowLedger(catalogue.source_id, "bsdata")
        self._reported_links: set[tuple[str, int]] = set()
        self._types: set[str] | None = None

    def _points_types(self, scope: Scope) -> set[str]:
        if self._types is None:
            self._types = points_types(scope)
        return self._types

    def _track(self, records: Iterable[Record]) -> Iterator[Record]:
        """Count each row as it is decided: a unit or rule curated, or a quarantine row."""
        for record in records:
            if isinstance(record, QuarantineRow):
                self.rows.quarantined(record)
            elif isinstance(record, CURATED_TYPES):
                self.rows.curate([record])
            else:
                self.rows.tally([record])
            yield record

    def _quarantine(self, line: int | None, reason: str, raw: str, table: str | None) -> QuarantineRow:
        return quarantine_row(self.catalogue.source_id, line, reason, raw, table)

    def report(self) -> FileReport:
        findings = tuple(f.as_dict() for f in self.stats.findings)
        return replace(self.rows.report(self.stats.counts(), self.stats.notes()), findings=findings)

    def run(self) -> Iterator[Record]:
        if self.root is None:
            error = self.catalogue.error or "unreadable"
            row = self._quarantine(self.catalogue.error_line, error, self.catalogue.head, "file")
            if self.catalogue.refused:  # not read: no rows, no `sources` row (as a missing file)
                self.rows.tally([row])
                yield row
                return
            yield from self._track([row])
        else:
            scope = self.folder.scope(self.catalogue)
            self.stats.missing_catalogues = scope.missing_names()
            yield from self._track(self._missing_catalogue_rows(scope))
            yield from self._track(self._unit_rows(scope))
            yield from self._track(self._rule_rows())
        yield self._source()

    def _source(self) -> Source:
        """Rows in are the rows decided: BSData has no row count of its own (docs/sources.md#bsdata-catalogues)."""
        path = str(self.catalogue.path)
        self.rows.rows_in = self.rows.rows_curated + self.rows.rows_quarantined
        return self.rows.source(path, self.catalogue.sha256)

    # -- catalogue links ----------------------------------------------------------
    def _missing_catalogue_rows(self, scope: Scope) -> Iterator[QuarantineRow]:
        for missing in scope.missing:
            if missing.linked_from != self.catalogue.path.name:
                continue  # reported by the file that declares the link
            if missing.kind == "gameSystem":
                raw = f'gameSystemId="{missing.target_id}"'
                reason = f"unresolved link: game system {missing.target_id} {missing.why}"
            else:
                raw = f'<catalogueLink name="{missing.name}" targetId="{missing.target_id}"/>'
                reason = f"unresolved link: catalogueLink to '{missing.name}' ({missing.target_id}) {missing.why}"
            yield self._quarantine(missing.line or self.root.sourceline, reason, raw, missing.kind)

    def _link_reason(self, link: Element, scope: Scope) -> str:
        tag, name, target = local_name(link), link.get("name") or "?", link.get("targetId") or "?"
        missing = scope.missing_names()
        where = f"not in '{self.catalogue.name}', its game system or linked catalogues"
        unavailable = f" (linked but not available: {', '.join(missing)})" if missing else ""
        return f"unresolved link: {tag} '{name}' -> {target} {where}{unavailable}"

    def _problem_rows(self, problems: list[LinkProblem], scope: Scope, line: int) -> Iterator[QuarantineRow]:
        for problem in problems:
            key = (str(problem.catalogue.path), int(problem.link.sourceline or 0))
            if key in self._reported_links:
                continue
            self._reported_links.add(key)
            in_file = problem.catalogue is self.catalogue and problem.link.sourceline
            where = "" if in_file else f"{problem.catalogue.path.name}:{problem.link.sourceline}: "
            row_line = int(problem.link.sourceline) if in_file else line
            yield self._quarantine(
                row_line, self._link_reason(problem.link, scope), where + raw_xml(problem.link), "link"
            )

    # -- units --------------------------------------------------------------------
    def _unit_rows(self, scope: Scope) -> Iterator[Record]:
        walker = UnitWalker(scope)
        first_line: dict[str, int] = {}
        for element in root_entries(self.root):
            line = int(element.sourceline or 1)
            link = element if local_name(element) == "entryLink" else None
            resolved = scope.resolve(element.get("targetId")) if link is not None else (element, self.catalogue)
            if resolved is None:
                yield self._quarantine(line, self._link_reason(element, scope), raw_xml(element), "entryLink")
                continue
            entry, entry_catalogue = resolved
            if local_name(entry) != "selectionEntry" or entry.get("type") not in {"unit", "model"}:
                self.stats.non_unit_root_entries += 1
                continue
            name = clean_name(entry.get("name")) or "?"
            key = entry.get("id") or f"line {line}"
            visibility = walker.visibility.of(entry, link)
            if is_hidden(entry) or is_hidden(link):
                self.ledger.skip(entry, "hidden unit", scope)
                yield self._quarantine(line, f"hidden entry: '{name}' has hidden=\"true\"", raw_xml(element), "unit")
            elif not visibility.shown:
                self.ledger.skip(entry, f"unit {visibility.reason}", scope)
                reason = f"{visibility.reason} entry: '{name}' is not shown otherwise"
                yield self._quarantine(line, reason, raw_xml(element, UNIT_EXCERPT), "unit")
            elif key in first_line:
                reason = f"duplicate entry: '{name}' ({key}) already read at line {first_line[key]}"
                yield self._quarantine(line, reason, raw_xml(element), "unit")
            else:
                first_line[key] = line
                content = walker.walk(entry, entry_catalogue, link)
                self._record_walk(content, scope)
                yield from self._problem_rows(content.problems, scope, line)
                yield from self._unit_records(content, link, scope, line, walker)

    def _record_walk(self, content: UnitContent, scope: Scope) -> None:
        """What the walk skipped and visited, for the file's report and the folder's self-check."""
        self.stats.force_only_skipped += sum(content.force_only.values())
        self.stats.unlocked_elements += content.unlocked
        self.ledger.visited |= content.visited
        for element, reason in content.skipped:
            self.ledger.skip(element, reason, scope)

    def _unit_records(
        self, content: UnitContent, link: Element | None, scope: Scope, line: int, walker: UnitWalker
    ) -> Iterator[Record]:
        entry = content.entry
        self.stats.hidden_fragments += content.hidden_skipped
        self.stats.purchases_skipped += content.purchases_skipped
        name = clean_name(entry.get("name")) or "?"
        if not content.has_unit_profile():
            self.ledger.skip(entry, "unit without a Unit profile", scope)
            reason = f"no Unit profile: '{name}' has no statline"
            yield self._quarantine(line, reason, raw_xml(entry, UNIT_EXCERPT), "unit")
            return
        datasheet_id = f"bs:{self.catalogue.stable_id}:{entry.get('id') or line}"
        frame = UnitFrame(datasheet_id, name, self.catalogue, scope, line)
        try:
            records = self._build(content, frame, link, scope, walker)
        except ValueError as exc:
            self.ledger.skip(entry, "unit quarantined", scope)
            reason = invalid_reason(record_table(exc, Datasheet.TABLE), exc, f"unit '{name}'")
            yield self._quarantine(line, reason, raw_xml(entry, UNIT_EXCERPT), "unit")
            return
        yield from records

    def _build(
        self, content: UnitContent, frame: UnitFrame, link: Element | None, scope: Scope, walker: UnitWalker
    ) -> list[Record]:
        """All records of one unit, built before any is yielded (a failure drops the unit whole)."""
        builder = UnitBuilder(content, frame, self.ledger)
        reader = CompositionReader(scope, walker.visibility, walker.is_barren)
        composition = reader.read(content.entry, link)
        points = points_tiers(composition, scope, self._points_types(scope))
        self.stats.points_modifiers_skipped += len(points.skipped)
        for element in points.used:
            self.ledger.publish("points", element)
        for element, why in points.skipped:
            self.ledger.explain("points", element, why)
        for element, why in points.unread:
            self.ledger.problem("points", element, why)
        records = [
            builder.datasheet(),
            *builder.model_records(points.minimum),
            *builder.weapon_records(),
            *builder.ability_records(),
            *builder.keyword_records(),
            *builder.points_records(points),
        ]
        statlines = [r for r in records if isinstance(r, ModelProfile)]
        records.extend(LoadoutReader(content, composition, builder, statlines, frame, walker.defaults).records(points))
        self.stats.findings.extend(builder.findings)
        return records

    # -- rules --------------------------------------------------------------------
    def _rule_rows(self) -> Iterator[Record]:
        first_line: dict[str, int] = {}
        for rule in self.root.iter("{*}rule"):
            line = int(rule.sourceline or 1)
            name = clean_name(rule.get("name"))
            key = rule.get("id") or f"line {line}"
            if is_hidden(rule):
                yield self._quarantine(line, f"hidden entry: rule '{name}' has hidden=\"true\"", raw_xml(rule), "rule")
            elif key in first_line:
                reason = f"duplicate entry: rule '{name}' ({key}) already read at line {first_line[key]}"
                yield self._quarantine(line, reason, raw_xml(rule), "rule")
            else:
                first_line[key] = line
                yield from self._rule_block(rule, name, line)

    def _rule_block(self, rule: Element, name: str, line: int) -> Iterator[Record]:
        try:
            yield RuleBlock(
                title=name, body=rule_text(rule), kind="rule", source_id=self.catalogue.source_id, line=line
            )
        except ValueError as exc:
            reason = invalid_reason(RuleBlock.TABLE, exc, f"rule '{name}'")
            yield self._quarantine(line, reason, raw_xml(rule), "rule")


@dataclass
class FileOutcome:
    """One catalogue's parse: its records (Source last), its report without self-checks, and its own ledger
    (merged into the folder's in file order, so the self-checks see every file; docs/sources.md#incremental)."""

    records: list[Record]
    report: FileReport
    ledger: CheckLedger


@dataclass
class SentOutcome:
    """A `FileOutcome` made in another process: picklable (the ledger by element positions), with its stats."""

    records: list[Record]
    report: FileReport
    ledger: dict[str, Any]
    stats: FileStats
    #: The key of the cache entry the other process wrote for it ("": none; the parent stores it).
    stored: str = ""


class FileCache(Protocol):
    """Where a folder parse finds and keeps each file's outcome (`sources/bsdata/filecache.py`)."""

    def holds(self, folder: BsdataFolder, catalogue: Catalogue) -> bool: ...

    def load(self, folder: BsdataFolder, catalogue: Catalogue) -> FileOutcome | None: ...

    def store(self, folder: BsdataFolder, catalogue: Catalogue, outcome: FileOutcome) -> None: ...

    def store_encoded(
        self, folder: BsdataFolder, catalogue: Catalogue, records: list[Record], report: FileReport,
        ledger: dict[str, Any],
    ) -> str: ...  # fmt: skip

    def adopt(self, key: str) -> None: ...


class BsdataParser:
    """Parses catalogues; keeps loaded folders so per-file calls load a folder only once.

    `stats` holds a `FileStats` per file parsed here (units, weapons, unresolved links, ...; none for a file
    taken from a `FileCache`); `parsed` and `reused` name the files parsed and those taken from the cache.
    """

    def __init__(self, report: ParseReport | None = None, cache: FileCache | None = None) -> None:
        self._folders: dict[Path, BsdataFolder] = {}
        self._ledgers: dict[int, CheckLedger] = {}  # by id of the folder, which lives as long
        self.stats: dict[str, FileStats] = {}
        self.checks: dict[str, list[SourceCheck]] = {}
        self.report = report
        self.cache = cache
        self.parsed: list[str] = []
        self.reused: list[str] = []
        self._sent: dict[Path, SentOutcome] = {}  # by catalogue path: outcomes parsed in other processes
        self._positions: dict[int, FolderPositions] = {}  # by id of the folder

    def folder(self, folder: Path) -> BsdataFolder:
        key = folder.resolve()
        if key not in self._folders:
            self._folders[key] = load_folder(key)
        return self._folders[key]

    def _catalogues(self, path: Path) -> list[tuple[BsdataFolder, Catalogue]]:
        if path.is_dir():
            folder = self.folder(path)
            return [(folder, c) for c in folder.catalogues]
        if not path.is_file() or path.suffix.lower() not in SUFFIXES:
            raise InputFormatError("expected a .cat/.gst file or a folder of them", path=path)
        folder = self.folder(path.parent)
        catalogue = folder.catalogue(path)
        return [(folder, catalogue)] if catalogue is not None else []

    def parse(self, path: Path) -> Iterator[Record]:
        """Records of a `.cat`/`.gst` file or of every such file in a folder (Source last per file),
        then the self-check of every file parsed (`SourceCheck`, also in each file's report)."""
        done: list[tuple[BsdataFolder, Catalogue, FileOutcome]] = []
        for folder, catalogue in self._catalogues(Path(path)):
            outcome = self._outcome(folder, catalogue)
            merge_ledger(self._ledgers.setdefault(id(folder), CheckLedger()), outcome.ledger)
            done.append((folder, catalogue, outcome))
            yield from outcome.records
        for folder, catalogue, outcome in done:
            checks = self._checks(folder, catalogue)
            self.checks[catalogue.source_id] = checks
            yield from checks
            if self.report is not None:
                self.report.add(replace(outcome.report, checks=tuple(c.row() for c in checks)))

    # -- files parsed in other processes (sources/forked.py) ------------------------
    def pending(self, path: Path) -> list[Path]:
        """The readable files of `path` the cache does not hold, to parse elsewhere (`sent_outcome`). Every
        file is loaded first, with the files its scope needs: processes forked now share the trees."""
        found = []
        for folder, catalogue in self._catalogues(Path(path)):
            if load_catalogue(catalogue).root is None:  # unreadable: nothing to parse
                continue
            folder.scope(catalogue)
            if self.cache is None or not self.cache.holds(folder, catalogue):
                found.append(catalogue.path)
        return found

    def weight(self, path: Path, file: Path) -> int:
        """How long a file of `path` (loaded by `pending`) takes to parse, roughly: its root entries."""
        root = self._catalogue(path, file)[1].root
        return len(root_entries(root)) if root is not None else 0

    def _catalogue(self, path: Path, file: Path) -> tuple[BsdataFolder, Catalogue]:
        return next(pair for pair in self._catalogues(Path(path)) if pair[1].path == file)

    def sent_outcome(self, path: Path, file: Path) -> SentOutcome:
        """One file of `path` parsed, for `receive` in the process that called `pending`; its cache entry
        written here (its records are dumped on this process, not on the parent that waits for them)."""
        folder, catalogue = self._catalogue(path, file)
        run = _FileRun(folder, catalogue, CheckLedger())
        records, report = list(run.run()), run.report()
        ledger = encode_ledger(run.ledger, self._positions_of(folder))
        stored = "" if self.cache is None else self.cache.store_encoded(folder, catalogue, records, report, ledger)
        return SentOutcome(records, report, ledger, run.stats, stored)

    def receive(self, file: Path, sent: SentOutcome) -> None:
        """Keep a file's outcome parsed elsewhere: `parse` uses it instead of parsing the file."""
        self._sent[file] = sent

    def _positions_of(self, folder: BsdataFolder) -> FolderPositions:
        return self._positions.setdefault(id(folder), FolderPositions(folder))

    def _parsed_outcome(self, folder: BsdataFolder, catalogue: Catalogue) -> tuple[FileOutcome, str]:
        """The file parsed here, or as another process parsed it (its ledger put back on this folder's trees),
        with the key of the cache entry that process wrote ("" if none)."""
        sent = self._sent.pop(catalogue.path, None)
        if sent is not None:
            self.stats[catalogue.source_id] = sent.stats
            ledger = decode_ledger(sent.ledger, self._positions_of(folder), folder.scope(catalogue))
            return FileOutcome(sent.records, sent.report, ledger), sent.stored
        run = _FileRun(folder, catalogue, CheckLedger())
        self.stats[catalogue.source_id] = run.stats
        return FileOutcome(list(run.run()), run.report(), run.ledger), ""

    def _outcome(self, folder: BsdataFolder, catalogue: Catalogue) -> FileOutcome:
        """The file's outcome from the cache, or parsed (and then stored, unless the process that parsed it
        did)."""
        fresh = catalogue.path in self._sent
        cached = self.cache.load(folder, catalogue) if self.cache is not None and not fresh else None
        if cached is not None:
            self.reused.append(str(catalogue.path))
            return cached
        outcome, stored = self._parsed_outcome(folder, catalogue)
        self.parsed.append(str(catalogue.path))
        if self.cache is not None and stored:
            self.cache.adopt(stored)
        elif self.cache is not None:
            self.cache.store(folder, catalogue, outcome)
        return outcome

    def _checks(self, folder: BsdataFolder, catalogue: Catalogue) -> list[SourceCheck]:
        if catalogue.root is None:
            return []
        ledger = self._ledgers[id(folder)]
        return check_records(catalogue, ledger, points_types(folder.scope(catalogue)))


def parse(path: Path, report: ParseReport | None = None) -> Iterator[Record]:
    """Records of a `.cat`/`.gst` file (its folder is loaded for links) or of a folder of them."""
    return BsdataParser(report).parse(path)
