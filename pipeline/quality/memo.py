"""A table's quality outcomes reused when nothing they are computed from changed (docs/quality.md#memo).

A suite's outcomes are a function of the code (its suite file, GX and every library: the code fingerprint) and
the rows of the relations its SQL reads: its own table and every table its derived columns or summary query
name. A relation's rows are given by its files in the release (a table's `<table>.parquet`, whose bytes are a
function of its rows; the matrix's and `unit_matchups`' Parquet files), so the outcomes are cached under the
sha256 of those files and read back, field for field, by a run whose files hash the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.cache.fingerprint import code_fingerprint, key_of, rows_multiset_digest
from pipeline.cache.parts import PartCache
from pipeline.ids import stored_file_sha256
from pipeline.quality.batches import Rows
from pipeline.quality.report import ExpectationOutcome, TableReport
from pipeline.quality.suites import SuiteSpec
from pipeline.store.ddl import MODEL_BY_TABLE

#: Cache kind (`<cache>/parts/<kind>/`).
MEMO_KIND = "quality"

#: Cache kind of the summary rows of single files (`file_summaries.py`).
FILE_SUMMARY_KIND = "quality_files"

#: Cache kind of a suite's outcomes keyed by the rows GX validates (`QualityMemo.batch_key`).
BATCH_KIND = "quality_batches"

#: Relations published as folders of Parquet files rather than one file.
FOLDER_RELATIONS = ("damage_matrix", "unit_matchups")

#: A view read by a suite's SQL: what it reads is not named there, so such a suite is never memoised.
_VIEW = re.compile(r"\bv_\w+", re.IGNORECASE)

#: SQL string literals and line comments: a table's name in them (`check_name = 'weapons'`) reads nothing.
_NOT_NAMES = re.compile(r"'(?:[^']|'')*'|--[^\n]*")


def read_relations(suite: SuiteSpec) -> set[str] | None:
    """The suite's table and every table its SQL names outside strings and comments (None: it reads a view).
    A CTE named like a table counts as that table: a dependency too many costs a validation, never a result."""
    sql = _NOT_NAMES.sub(" ", " ".join([*suite.derived_columns.values(), suite.summary_sql or ""]))
    if _VIEW.search(sql):
        return None
    named = {name for name in (*MODEL_BY_TABLE, *FOLDER_RELATIONS) if re.search(rf"\b{name}\b", sql)}
    return named | {suite.table}


@dataclass(frozen=True)
class QualityMemo:
    """The release's files' sha256 (by path in the release; others are hashed when read) and the cache."""

    release: Path
    known: Mapping[str, str]
    cache: PartCache
    by_file: PartCache  # summary rows of single files (`file_summaries.py`)
    by_rows: PartCache  # outcomes by the rows GX validates (`batch_key`)
    validated: set[str] = field(default_factory=set)  # tables GX validated this run
    reused: set[str] = field(default_factory=set)  # tables whose outcomes came from the cache
    files_summarised: set[str] = field(default_factory=set)  # file keys whose summary rows this run computed
    files_read: set[str] = field(default_factory=set)  # file keys whose summary rows it read from the cache

    @classmethod
    def of(cls, cache: Path | None, release: Path, known: Mapping[str, str]) -> QualityMemo:
        return cls(
            release,
            dict(known),
            PartCache(cache, MEMO_KIND),
            PartCache(cache, FILE_SUMMARY_KIND),
            PartCache(cache, BATCH_KIND),
        )

    def files(self, relation: str) -> list[tuple[str, str]]:
        """(path in the release, sha256) of each file holding the relation's rows (none: it is absent)."""
        paths = [self.release / f"{relation}.parquet"]
        if relation in FOLDER_RELATIONS:
            paths = sorted((self.release / relation).rglob("*.parquet"))
        found = []
        for path in paths:
            if path.is_file():
                name = path.relative_to(self.release).as_posix()
                found.append((name, self.known.get(name) or stored_file_sha256(str(path))))
        return found

    def _files(self, relation: str) -> list[str]:
        return [f"{name}={sha}" for name, sha in self.files(relation)]

    def key(self, suite: SuiteSpec) -> str | None:
        """The key of the suite's outcomes on this release (None: not memoised)."""
        relations = read_relations(suite)
        if relations is None or self.cache.folder is None:
            return None
        files = [f for relation in sorted(relations) for f in [relation, *self._files(relation)]]
        return key_of(code_fingerprint(), MEMO_KIND, suite.table, *files)

    def batch_key(self, rows: Rows) -> str | None:
        """The key of a suite's outcomes on exactly these rows (GX's batch before pandas: its schema, its rows
        in any order (GX reads them in key order: the same rows give the same batch), the table's status and
        row count), whatever files they came from: a table whose file changed in columns no expectation reads
        (they come as NULL) validates as before (None: no cache, or rows Polars cannot hash)."""
        if self.by_rows.folder is None:
            return None
        try:
            digest = rows_multiset_digest(pl.from_arrow(rows.unordered()))  # type: ignore[arg-type]
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            return None
        return key_of(code_fingerprint(), BATCH_KIND, rows.table, rows.status, rows.rows, rows.key, digest)

    def get(self, key: str | None, by_rows: bool = False) -> TableReport | None:
        """The report kept under `key`, or None (no key, no entry, or an entry the cache no longer trusts)."""
        found = (self.by_rows if by_rows else self.cache).get(key) if key is not None else None
        if found is None:
            return None
        return report_from_dict(json.loads(found[0].read_bytes()))

    def keep(self, key: str | None, report: TableReport, by_rows: bool = False) -> None:
        if key is not None:
            parts = self.by_rows if by_rows else self.cache
            parts.keep_bytes(key, json.dumps(asdict(report)).encode())  # dicts keep their order

    def prune(self) -> int:
        """Drop the kept outcomes and file summaries this run did not use (after it published)."""
        return self.cache.prune() + self.by_file.prune() + self.by_rows.prune()

    @property
    def suites(self) -> tuple[int, int]:
        """Suites this run validated with GX, and those whose outcomes it read from the cache."""
        return len(self.validated), len(self.reused)

    @property
    def file_summaries(self) -> tuple[int, int]:
        """Files whose summary rows this run computed, and those read from the cache."""
        return len(self.files_summarised), len(self.files_read - self.files_summarised)


def report_from_dict(data: Mapping[str, Any]) -> TableReport:
    """A `TableReport` from its `asdict` form (outcomes hold JSON values only: `report.plain_value`)."""
    outcomes = tuple(ExpectationOutcome(**outcome) for outcome in data["outcomes"])
    return TableReport(str(data["table"]), str(data["status"]), int(data["rows"]), outcomes)
