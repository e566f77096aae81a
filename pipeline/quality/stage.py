"""The quality stage: run every suite on the store, report, and gate publishing.

`run_quality` checks a DuckDB connection and returns the report; `quality_gate`
is the pipeline's step on a staged release: it adds the release-level checks, writes
`quality/` into the release and raises `QualityGateError` (one clear message) when a
critical gate fails, so the staging folder is dropped and the previous release stays as it was.
"""

from __future__ import annotations

import re
import shutil
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline import config
from pipeline.errors import QualityGateError
from pipeline.helper_process import HelperWarning, running_helper
from pipeline.publish.outdir import REJECTED_DIRNAME
from pipeline.quality.batches import (
    Batch,
    Rows,
    TableStatus,
    existing_tables,
    fetch_batch,
    fetch_rows,
    reading_cursor,
)
from pipeline.quality.file_summaries import summary_by_file
from pipeline.quality.gx_runner import GxRunner
from pipeline.quality.memo import QualityMemo
from pipeline.quality.pandas_frames import arrow_as_pandas, converts_through_arrow
from pipeline.quality.report import QUALITY_DIRNAME, ExpectationOutcome, QualityReport, QualitySummary, TableReport
from pipeline.quality.suites import SuiteFormatError, SuiteSpec, load_suites
from pipeline.store.ddl import MODEL_BY_TABLE
from pipeline.store.load import open_store


def _fetch(
    con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str], memo: QualityMemo | None = None
) -> Batch:
    try:
        return fetch_batch(con, suite, present, summary_by_file(con, suite, present, memo))
    except duckdb.Error as exc:
        raise _not_run(suite, exc) from exc


def _not_run(suite: SuiteSpec, exc: duckdb.Error) -> SuiteFormatError:
    """The suite file's error when DuckDB cannot run what it declares."""
    what = "summary query does" if suite.summary_sql is not None else "derived columns do"
    return SuiteFormatError(f"{what} not run: {exc}", path=config.EXPECTATIONS_DIR / f"{suite.table}.json")


def _fetch_each(
    con: duckdb.DuckDBPyConnection, suites: list[SuiteSpec], present: set[str], memo: QualityMemo | None
) -> list[Batch]:
    return [_fetch(con, suite, present, memo) for suite in suites]


def run_quality(
    con: duckdb.DuckDBPyConnection, *, suites_dir: Path = config.EXPECTATIONS_DIR, memo: QualityMemo | None = None
) -> QualityReport:
    """Validate every table of the store against its suite (`report.write(dir)` writes `quality/`).

    Absent or empty tables are checked as empty (see `batches`) and reported with their status. The
    summary queries (tables too large to load) run in DuckDB on a worker thread while GX imports and
    validates the other tables: DuckDB releases the GIL (docs/quality.md#speed). On a connection whose
    configuration is locked (`dataslate quality` reads releases sandboxed) they run after the others.
    `memo`: a suite whose relations' files are those of a cached run takes that run's outcomes (`memo.py`).
    """
    suites = load_suites(suites_dir)
    present = existing_tables(con)
    checked = [s for s in suites if s.table in present or s.table in MODEL_BY_TABLE]
    reports = {s.table: TableReport(s.table, "absent", 0, ()) for s in suites}
    keys = {s.table: memo.key(s) for s in checked} if memo is not None else {}
    remembered = {t: r for t, key in keys.items() if memo is not None and (r := memo.get(key)) is not None}
    reports.update(remembered)
    todo = [s for s in checked if s.table not in remembered]
    if todo:
        reports.update(_validate(con, todo, present, memo))
    if memo is not None:
        memo.reused.update(remembered)
        for suite in todo:
            memo.keep(keys.get(suite.table), reports[suite.table])
    return QualityReport(tables=[reports[s.table] for s in suites])


def _validate(
    con: duckdb.DuckDBPyConnection, suites: list[SuiteSpec], present: set[str], memo: QualityMemo | None = None
) -> dict[str, TableReport]:
    """Each suite's report: the summary queries on a worker thread (its own cursor) while GX validates the rest;
    a summary that adds up file by file reads the rows of unchanged files from `memo` (`file_summaries`)."""
    summaries = [s for s in suites if s.summary_sql is not None]
    reports = {}
    cursor = reading_cursor(con)
    runner = _Runner(memo)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            summarised = pool.submit(_fetch_each, cursor, summaries, present, memo) if cursor else None
            for suite in suites:
                if suite.summary_sql is None:
                    reports[suite.table] = _rows_report(runner, suite, _fetch_rows(con, suite, present), memo)
            batches = summarised.result() if summarised else _fetch_each(con, summaries, present, memo)
            for suite, batch in zip(summaries, batches, strict=True):
                reports[suite.table] = runner.report(suite, batch)
    finally:
        if cursor is not None:
            cursor.close()
    return reports


class _Runner:
    """GX, set up on the first validation (a run whose batches are all recognised sets it up for nothing): in
    the run's helper process when one runs (`helper_process.py`), else here."""

    def __init__(self, memo: QualityMemo | None) -> None:
        self.memo = memo
        self.process = running_helper()
        self.gx: GxRunner | None = None

    def report(self, suite: SuiteSpec, batch: Batch) -> TableReport:
        return self._report(suite, batch.status, batch.rows, batch.frame, batch.key)

    def report_rows(self, suite: SuiteSpec, rows: Rows) -> TableReport:
        """As `report` on `rows.batch()`; the helper is sent the Arrow rows and converts them itself."""
        if self.process is not None and converts_through_arrow(rows.arrow.schema):
            return self._report(suite, rows.status, rows.rows, rows.arrow, rows.key)
        return self.report(suite, rows.batch())

    def _report(
        self, suite: SuiteSpec, status: TableStatus, count: int, batch: Any, key: tuple[str, ...]
    ) -> TableReport:
        if self.memo is not None:
            self.memo.validated.add(suite.table)
        return TableReport(suite.table, status, count, tuple(self._validate(suite, batch, key)))

    def _validate(self, suite: SuiteSpec, batch: Any, key: tuple[str, ...]) -> list[ExpectationOutcome]:
        if self.process is not None:
            try:
                return self.process.validate(suite, batch, key)
            except (OSError, EOFError) as exc:
                warnings.warn(f"helper process gone ({exc!r}): GX runs in this process", HelperWarning, stacklevel=2)
                self.process = None
        if isinstance(batch, pa.Table):
            batch = arrow_as_pandas(batch, None)
        self.gx = self.gx if self.gx is not None else GxRunner()
        return self.gx.validate(suite, batch, key)


def _fetch_rows(con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str]) -> Rows:
    try:
        return fetch_rows(con, suite, present)
    except duckdb.Error as exc:
        raise _not_run(suite, exc) from exc


def _rows_report(runner: _Runner, suite: SuiteSpec, rows: Rows, memo: QualityMemo | None) -> TableReport:
    """The outcomes of a suite on these rows: the cached ones if GX validated the same rows before
    (docs/quality.md#outcomes-by-the-rows-gx-sees), else GX's (then kept)."""
    key = memo.batch_key(rows) if memo is not None else None
    found = memo.get(key, by_rows=True) if memo is not None else None
    if found is not None and memo is not None:
        memo.reused.add(suite.table)
        return found
    report = runner.report_rows(suite, rows)
    if memo is not None:
        memo.keep(key, report, by_rows=True)
    return report


def quality_gate(
    release: Path,
    *,
    checks: Sequence[TableReport] = (),
    suites_dir: Path = config.EXPECTATIONS_DIR,
    memo: QualityMemo | None = None,
) -> QualitySummary:
    """Check a staged release's DuckDB (the damage matrix included) and add `checks` (the release-level
    ones); write `quality/`; raise if a critical gate failed. `memo`: outcomes of unchanged tables reused.

    Returns the compact summary that goes into `manifest.json`.
    """
    with open_store(release / config.DUCKDB_FILENAME) as con:
        report = run_quality(con, suites_dir=suites_dir, memo=memo)
    report.tables.extend(checks)
    report.write(release)
    if not report.passed:
        kept = keep_rejected_report(release)
        raise QualityGateError(report.message(), context=f"full report: {kept}")
    return report.manifest_summary()


def keep_rejected_report(release: Path) -> Path:
    """Copy a failed release's quality/ folder out of staging (which is about to be dropped) to
    `<output folder>/.rejected/<version>/`, replacing the report of an earlier rejected run: one at most,
    beside the releases, never in the temp folder. Releases and `latest` stay as they were."""
    version = re.sub(r"^\.staging-(.+)-\d+$", r"\1", release.name)
    rejected = release.parent / REJECTED_DIRNAME
    shutil.rmtree(rejected, ignore_errors=True)
    shutil.copytree(release / QUALITY_DIRNAME, rejected / version / QUALITY_DIRNAME)
    return rejected / version / QUALITY_DIRNAME / "index.html"
