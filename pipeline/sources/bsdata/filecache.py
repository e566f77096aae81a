"""Each catalogue's parse outcome in the cache, keyed by its bytes and those of every file in its scope, so a
change to one catalogue re-parses that catalogue only (docs/sources.md#incremental).

An outcome holds the file's records, its report and its `CheckLedger` (elements by position); the self-checks
that need every file's ledger are recomputed from the folder's trees, never stored.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipeline.cache.entries import CacheWarning, read_entry, write_entry
from pipeline.cache.fingerprint import code_fingerprint, key_of
from pipeline.sources.bsdata.index import BsdataFolder, Catalogue, Scope
from pipeline.sources.bsdata.parser import FileOutcome
from pipeline.sources.bsdata.positions import FolderPositions, decode_ledger, encode_ledger
from pipeline.sources.cached import dump_records, file_report, load_records

KIND = "parsed-bsdata-file"


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

    def _positions_of(self, folder: BsdataFolder) -> FolderPositions:
        if id(folder) not in self._positions:
            self._positions[id(folder)] = FolderPositions(folder)
        return self._positions[id(folder)]

    def _scope(self, folder: BsdataFolder, catalogue: Catalogue) -> Scope:
        return folder.scope(catalogue) if catalogue.root is not None else Scope([], [])

    def store(self, folder: BsdataFolder, catalogue: Catalogue, outcome: FileOutcome) -> None:
        payload = {
            "records": dump_records(outcome.records),
            "report": outcome.report.as_dict(),
            "ledger": encode_ledger(outcome.ledger, self._positions_of(folder)),
        }
        write_entry(self.folder, KIND, file_key(folder, catalogue), payload)

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
            warnings.warn(f"cache entry ignored, recomputing: {KIND}/{key}: {exc!s:.200}", CacheWarning, stacklevel=2)
            return None
        return FileOutcome(records, report, ledger)
