"""The quality stage end to end with Great Expectations: a good store passes, a broken
one is refused with exactly the breaks reported, and GX stays well-behaved."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from pipeline import config
from pipeline.quality.gx_runner import GxRunner
from pipeline.quality.report import QualitySummary
from pipeline.quality.suites import ExpectationSpec, SuiteSpec, list_expectations
from tests.quality.conftest import LEFT_OUT, WARBOSS, WAZDAKKA, failures, summary

#: (table, expectation) -> (severity, unexpected count, first offending row) for `conftest.BREAKS`.
EXPECTED_BREAKS = {
    ("model_profiles", "expect_column_values_to_be_between(toughness in [1, 20])"): (
        "critical",
        1,
        {"profile_id": f"{WARBOSS}:1", "toughness": 0},
    ),
    ("weapons", "expect_column_values_to_be_between(ap in [-6, 0])"): (
        "critical",
        2,
        {"weapon_id": f"{WARBOSS}:melee:big-choppa", "ap": 1},
    ),
    ("weapons", "expect_column_values_to_match_regex(attacks)"): (
        "critical",
        1,
        {"weapon_id": f"{WARBOSS}:melee:power-klaw", "attacks": "D7"},
    ),
    ("weapons", "expect_column_values_to_be_null(orphan_datasheet_id)"): (
        "critical",
        1,
        {"weapon_id": "wh:000000999:melee:choppa", "orphan_datasheet_id": "wh:000000999"},
    ),
    ("keywords", "expect_compound_columns_to_be_unique(datasheet_id, keyword, model)"): (
        "critical",
        2,
        {"datasheet_id": WARBOSS, "keyword": "ORKS", "model": None},
    ),
    ("rules", "expect_column_values_to_be_null(orphan_variant_of)"): (
        "critical",
        1,
        {"rule_id": "rule:deep-strike-2", "orphan_variant_of": "rule:gone"},
    ),
    ("sources", "expect_column_values_to_be_between(rows_unaccounted in [0, 0])"): (
        "critical",
        1,
        {"source_id": "wahapedia_csv:Datasheets.csv", "rows_unaccounted": 1},
    ),
    ("sources", "expect_column_values_to_be_null(file_without_curated_rows)"): (
        "warning",
        1,
        {
            "source_id": "wahapedia_csv:Datasheets.csv",
            "file_without_curated_rows": "wahapedia_csv:Datasheets.csv",
        },
    ),
    ("datasheets", "expect_column_values_to_be_null(without_points)"): (
        "warning",
        1,
        {"datasheet_id": WAZDAKKA, "without_points": WAZDAKKA},
    ),
}


@pytest.mark.slow
def test_good_store_passes_every_expectation(good_gate: QualitySummary, good_release: Path) -> None:
    assert good_gate.as_dict() == {
        "passed": True,
        "expectations": len(list_expectations()),
        "critical_failures": 0,
        "warnings": 0,
        "failed": [],
    }
    report = summary(good_release)
    assert failures(report) == {}
    statuses = {table: (t["status"], t["rows"]) for table, t in report["tables"].items()}
    assert statuses["weapons"] == ("ok", 9)
    assert statuses["weapon_abilities"] == ("ok", 12)
    assert statuses["leaders"] == ("empty", 0)


@pytest.mark.slow
def test_good_store_report_page(good_gate: QualitySummary, good_release: Path) -> None:
    """The page replaces GX Data Docs: one static file naming every table, nothing to load or run."""
    quality = good_release / "quality"
    assert sorted(p.name for p in quality.iterdir()) == ["index.html", "summary.json"]
    page = (quality / "index.html").read_text(encoding="utf-8")
    for table, _, _ in list_expectations():
        assert f'<h3 id="t-{table}">' in page
    assert not re.search(r"<(script|link|img|iframe|object)\b", page)
    assert "Content-Security-Policy" in page


@pytest.mark.slow
def test_broken_store_reports_exactly_the_breaks(broken_gate: tuple[str, Path]) -> None:
    _, release = broken_gate
    found = failures(summary(release))
    assert set(found) == set(EXPECTED_BREAKS)
    for key, (severity, count, first_row) in EXPECTED_BREAKS.items():
        outcome = found[key]
        assert (outcome["severity"], outcome["unexpected_count"]) == (severity, count), key
        assert outcome["unexpected_rows"][0] == first_row, key


@pytest.mark.slow
def test_broken_store_fails_with_one_clear_message(broken_gate: tuple[str, Path]) -> None:
    message, release = broken_gate
    assert message.startswith("7 critical quality gate(s) failed: keywords: ")
    assert "model_profiles: expect_column_values_to_be_between(toughness in [1, 20]) failed on 1 of 2 rows" in message
    assert "; and 2 more (full report: " in message
    kept = Path(message.rsplit("(full report: ", 1)[1].rstrip(")"))
    assert kept == release.parent / ".rejected" / release.name / "quality" / "index.html"
    assert kept.is_file()
    assert json.loads((kept.parent / "summary.json").read_text(encoding="utf-8"))["critical_failures"] == 7


@pytest.mark.slow
def test_absent_tables_are_checked_as_empty(broken_gate: tuple[str, Path]) -> None:
    tables = summary(broken_gate[1])["tables"]
    for table in LEFT_OUT:
        assert (tables[table]["status"], tables[table]["rows"]) == ("absent", 0)
        assert all(e["success"] for e in tables[table]["expectations"])


def test_importing_the_stage_does_not_import_gx() -> None:
    code = "import sys, pipeline.quality, pipeline.quality.stage; print('great_expectations' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=config.REPO_ROOT)
    assert out.stdout.strip() == "False"


def test_the_early_import_loads_gx_once_and_leaves_warnings_alone() -> None:
    code = (
        "import sys, warnings\n"
        "from pipeline.quality import gx_runner\n"
        "gx_runner.start_gx_import(); first = gx_runner._early_import\n"
        "gx_runner.start_gx_import(); assert gx_runner._early_import is first\n"
        "gx = gx_runner.import_gx()\n"
        "loaded = gx is sys.modules['great_expectations']\n"
        "print(first.name, first.is_alive(), loaded, warnings.showwarning.__module__)\n"
        "warnings.warn('after gx')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=config.REPO_ROOT)
    assert out.stdout.strip() == "gx-import False True warnings"
    assert "UserWarning: after gx" in out.stderr and "py.warnings" not in out.stderr


def test_gx_runs_quietly_and_leaves_warnings_alone(capfd: pytest.CaptureFixture[str]) -> None:
    suite = SuiteSpec(
        "t",
        "",
        {},
        (
            ExpectationSpec(
                "expect_column_values_to_match_regex",
                {"column": "d", "regex": "^(?:D(?:3|6))$"},
                "critical",
                "",
            ),
            ExpectationSpec("expect_column_values_to_not_be_null", {"column": "d"}, "warning", ""),
        ),
    )
    runner = GxRunner()
    outcomes = runner.validate(suite, pd.DataFrame({"k": ["a", "b", "c"], "d": ["D6", "D7", None]}), ("k",))
    assert [(o.success, o.unexpected_count, o.unexpected_rows) for o in outcomes] == [
        (False, 1, [{"k": "b", "d": "D7"}]),
        (False, 1, [{"k": "c", "d": None}]),
    ]
    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")
    assert warnings.showwarning.__module__ == "warnings"


def test_an_expectation_that_cannot_run_fails_with_its_error() -> None:
    suite = SuiteSpec(
        "u", "", {}, (ExpectationSpec("expect_column_values_to_be_null", {"column": "nope"}, "warning", ""),)
    )
    (outcome,) = GxRunner().validate(suite, pd.DataFrame({"k": ["a"]}))
    assert not outcome.success
    assert outcome.error is not None and '"nope"' in outcome.error


def test_the_helper_process_validates_as_this_process_does(broken_gate: tuple[str, Path]) -> None:
    """The broken copy's report (every break, its counts and offending rows) is the same whether GX runs in the
    helper process (sent Arrow rows and pandas summaries) or here."""
    from pipeline import helper_process
    from pipeline.quality.stage import run_quality
    from pipeline.store.load import open_store

    _, release = broken_gate
    with open_store(release / config.DUCKDB_FILENAME) as con:
        here = run_quality(con)
        assert helper_process.start_helper() is not None
        there = run_quality(con)
    assert there.to_dict() == here.to_dict()
    assert len(here.failures("critical")) == 7
