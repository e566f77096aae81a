"""The quality stage: run every suite on the store, report, and gate publishing.

`run_quality` checks a DuckDB connection and returns the report; `quality_gate`
is the pipeline's step on a staged release: it writes `quality/` into the release
and raises `QualityGateError` (one clear message) when a critical gate fails, so
the staging folder is dropped and the previous release stays as it was.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import duckdb

from pipeline import config
from pipeline.errors import QualityGateError
from pipeline.quality.batches import existing_tables, fetch_batch
from pipeline.quality.docs import prune_unreferenced_static, stabilise_docs
from pipeline.quality.gx_runner import RUN_TIME, GxRunner
from pipeline.quality.report import DOCS_DIRNAME, QUALITY_DIRNAME, QualityReport, QualitySummary, TableReport
from pipeline.quality.suites import SuiteFormatError, SuiteSpec, load_suites
from pipeline.store.ddl import MODEL_BY_TABLE
from pipeline.store.load import open_store

#: How Data Docs time stamps are rewritten (the fixed run time, in GX's format).
DOCS_STAMP = RUN_TIME.strftime("%Y%m%dT%H%M%S.%fZ")


def _check_table(runner: GxRunner, con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str]) -> TableReport:
    if suite.table not in present and suite.table not in MODEL_BY_TABLE:
        return TableReport(suite.table, "absent", 0, ())
    try:
        batch = fetch_batch(con, suite, present)
    except duckdb.Error as exc:
        path = config.EXPECTATIONS_DIR / f"{suite.table}.json"
        what = "summary query does" if suite.summary_sql is not None else "derived columns do"
        raise SuiteFormatError(f"{what} not run: {exc}", path=path) from exc
    outcomes = runner.validate(suite, batch.frame, batch.key)
    return TableReport(suite.table, batch.status, batch.rows, tuple(outcomes))


def run_quality(
    con: duckdb.DuckDBPyConnection,
    out_dir: Path,
    *,
    build_docs: bool = True,
    suites_dir: Path = config.EXPECTATIONS_DIR,
) -> QualityReport:
    """Validate every table of the store against its suite.

    With `build_docs`, GX Data Docs (HTML, built offline) go to `out_dir/quality/docs`;
    `report.write(out_dir)` adds `quality/summary.json`. Absent or empty tables are
    checked as empty (see `batches`) and reported with their status.
    """
    docs_dir = out_dir / QUALITY_DIRNAME / DOCS_DIRNAME if build_docs else None
    if docs_dir is not None:
        shutil.rmtree(docs_dir, ignore_errors=True)
    runner = GxRunner(docs_dir)
    present = existing_tables(con)
    tables = [_check_table(runner, con, suite, present) for suite in load_suites(suites_dir)]
    if runner.build_docs() is not None and docs_dir is not None:
        stabilise_docs(docs_dir, DOCS_STAMP)
        prune_unreferenced_static(docs_dir)
    return QualityReport(tables=tables, docs_dir=docs_dir)


def quality_gate(
    release: Path, *, build_docs: bool = True, suites_dir: Path = config.EXPECTATIONS_DIR
) -> QualitySummary:
    """Check a staged release's DuckDB (the damage matrix included); write `quality/`; raise if a
    critical gate failed.

    Returns the compact summary that goes into `manifest.json`.
    """
    with open_store(release / config.DUCKDB_FILENAME) as con:
        report = run_quality(con, release, build_docs=build_docs, suites_dir=suites_dir)
    report.write(release)
    if not report.passed:
        kept = keep_rejected_report(release)
        raise QualityGateError(report.message(), context=f"full report: {kept}")
    return report.manifest_summary()


def keep_rejected_report(release: Path) -> Path:
    """Copy a failed release's quality/ folder out of staging (which is about to be dropped).

    It goes to the system temp folder, not the output folder: a rejected run leaves
    the output folder exactly as it was.
    """
    target = Path(tempfile.gettempdir()) / f"dataslate-rejected-{release.name.removeprefix('.staging-')}"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(release / QUALITY_DIRNAME, target / QUALITY_DIRNAME)
    return target / QUALITY_DIRNAME / "summary.json"
