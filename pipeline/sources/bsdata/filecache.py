"""Each catalogue's parse outcome in the cache, keyed by its bytes and those of every file in its scope, so a
change to one catalogue re-parses that catalogue only (docs/sources.md#incremental).

An outcome holds the file's records, its report and its `CheckLedger` (elements by position); the self-checks
that need every file's ledger are recomputed from the folder's trees, never stored.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipeline.cache.entries import entry_path, read_entry, warn_unfit, write_entry
from pipeline.cache.fingerprint import code_fingerprint, key_of
from pipeline.sources.bsdata.index import BsdataFolder, Catalogue, Scope
from pipeline.sources.bsdata.parser import BsdataParser, FileOutcome
from pipeline.sources.bsdata.positions import FolderPositions, decode_ledger, encode_ledger
from pipeline.sources.cached import dump_records, file_report, load_records
from pipeline.sources.report import FileReport, ParseReport
from schemas.records import Record, SourceCheck

KIND = "parsed-bsdata-file"
#: A folder parsed whole: the keys of its files' entries, and its self-checks and reports (small).
FOLDER_KIND = "parsed-bsdata-folder"


def _described(catalogue: Catalogue) -> list[object]:
    """What a file was when read: name, sha256 of its bytes, or why it could not be used."""
    return [catalogue.path.name, catalogue.sha256, catalogue.error, catalogue.error_line, catalogue.refused]


def file_key(folder: BsdataFolder, catalogue: Catalogue) -> str:
    """The code, where the file lies, its bytes, and the files (and missing links) its scope resolves to."""
    scope = folder.scope(catalogue)  # loads the file and the files it depends on
    parts: list[object] = [code_fingerprint(), KIND, os.path.abspath(catalogue.path), *_described(catalogue)]
    if catalogue.root is not None:
        parts += [part for used in scope.catalogues for part in _described(used)]
        parts += [repr(missing) for missing in scope.missing]
    return key_of(*parts)


class BsdataFileCache:
    """`parser.FileCache` on a cache folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._positions: dict[int, FolderPositions] = {}  # by id of the BsdataFolder, which outlives the parse
        #: The key of each file loaded or stored, in parse order.
        self.keys: list[str] = []

    def _positions_of(self, folder: BsdataFolder) -> FolderPositions:
        if id(folder) not in self._positions:
            self._positions[id(folder)] = FolderPositions(folder)
        return self._positions[id(folder)]

    def _scope(self, folder: BsdataFolder, catalogue: Catalogue) -> Scope:
        return folder.scope(catalogue) if catalogue.root is not None else Scope([], [])

    def store(self, folder: BsdataFolder, catalogue: Catalogue, outcome: FileOutcome) -> None:
        ledger = encode_ledger(outcome.ledger, self._positions_of(folder))
        self.adopt(self.store_encoded(folder, catalogue, outcome.records, outcome.report, ledger))

    def store_encoded(
        self, folder: BsdataFolder, catalogue: Catalogue, records: list[Record], report: FileReport,
        ledger: dict[str, Any],
    ) -> str:  # fmt: skip
        """Write a file's entry (its ledger already encoded, as a forked process sends it); returns its key,
        for `adopt` in the process that keeps the parse's keys."""
        payload = {"records": dump_records(records), "report": report.as_dict(), "ledger": ledger}
        key = file_key(folder, catalogue)
        write_entry(self.folder, KIND, key, payload)
        return key

    def adopt(self, key: str) -> None:
        """Count an entry written (here or by a forked process) among this parse's files."""
        self.keys.append(key)

    def holds(self, folder: BsdataFolder, catalogue: Catalogue) -> bool:
        """An entry is there (it may still not fit: `load` says)."""
        return entry_path(self.folder, KIND, file_key(folder, catalogue)).is_file()

    def load(self, folder: BsdataFolder, catalogue: Catalogue) -> FileOutcome | None:
        """The stored outcome, or None (a miss; a warning if an entry was there but does not fit)."""
        key = file_key(folder, catalogue)
        payload: Any = read_entry(self.folder, KIND, key)
        if payload is None:
            return None
        try:
            records = load_records(payload["records"])
            report = file_report(payload["report"])
            ledger = decode_ledger(payload["ledger"], self._positions_of(folder), self._scope(folder, catalogue))
        except (KeyError, IndexError, TypeError, ValueError, ValidationError) as exc:
            warn_unfit(KIND, key, exc)
            return None
        self.keys.append(key)
        return FileOutcome(records, report, ledger)


def folder_parser(cache: Path) -> BsdataParser:
    """A parser that takes each catalogue's outcome from the cache folder when it fits, and stores it else."""
    return BsdataParser(ParseReport(), BsdataFileCache(cache))


def parse_folder(
    item: Path, cache: Path, key: str, parser: BsdataParser | None = None
) -> tuple[list[Record], list[FileReport], list[str], list[str]]:
    """A folder (or file) parsed with each catalogue's outcome from the cache when it fits; the folder's entry
    (`key`: its whole tree) then lets an unchanged folder be read back without loading any XML.
    `parser`: a `folder_parser` of this cache (it may hold outcomes parsed in other processes).
    Returns the records, the file reports, the files parsed and those taken from the cache."""
    parser = folder_parser(cache) if parser is None else parser
    files, report = parser.cache, parser.report
    assert isinstance(files, BsdataFileCache) and report is not None
    records = list(parser.parse(item))
    checks = [r for r in records if isinstance(r, SourceCheck)]
    payload = {
        "files": files.keys,
        "checks": dump_records(list(checks)),
        "reports": [f.as_dict() for f in report.files],
    }
    write_entry(cache, FOLDER_KIND, key, payload)
    return records, report.files, parser.parsed, parser.reused


def load_folder_parse(cache: Path, key: str) -> tuple[list[Record], list[FileReport]] | None:
    """The records and reports of a folder unchanged since `parse_folder` stored it, or None (a miss; a
    warning if an entry was there but does not fit)."""
    payload: Any = read_entry(cache, FOLDER_KIND, key)
    if payload is None:
        return None
    try:
        records: list[Record] = []
        for file_key_ in payload["files"]:
            entry = read_entry(cache, KIND, file_key_)
            if entry is None:
                return None
            records += load_records(entry["records"])
        records += load_records(payload["checks"])
        reports = [file_report(f) for f in payload["reports"]]
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        warn_unfit(FOLDER_KIND, key, exc)
        return None
    return records, reports
