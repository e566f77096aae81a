"""Hand-broken inputs publish with their bad rows quarantined; a critical breach publishes nothing.

`broken_release` (conftest) is `dataslate run` on the seeds (modified), a hand-broken slice of
the real Wahapedia export and a hand-broken page export: a model with T = 0, a weapon of a
datasheet that does not exist, a table cut mid-row, bytes that are not UTF-8, an AP +1 weapon
and a cut profile row. The critical breach is a real input too: a Wahapedia export whose
`Datasheets.csv` was cut to its header line.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from typer.testing import Result

from pipeline import config
from pipeline.cli import EXIT_QUALITY
from pipeline.publish.release import resolve_release
from tests.publish.releases import BrokenInputs, Published, invoke, one_error, snapshot, staging_folders

pytestmark = pytest.mark.slow


#: Reasons that replace those of conftest's `_break_wahapedia`: a cost with bytes that are not UTF-8
#: is quarantined for its encoding before its value is ever read, and a cut last field has a reason
#: of its own (conftest expects "", which any reason contains).
def _quarantine(release: Path) -> list[dict[str, Any]]:
    return pl.read_parquet(release / "quarantine.parquet").to_dicts()


def _summary(release: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((release / "quality" / "summary.json").read_text())
    return summary


def _failed(summary: dict[str, Any], table: str, expectation: str) -> dict[str, Any]:
    outcomes = summary["tables"][table]["expectations"]
    return next(o for o in outcomes if o["expectation"] == expectation and not o["success"])


def test_broken_inputs_publish(broken_run: tuple[Path, Result], broken_release: Published) -> None:
    _, result = broken_run
    assert result.exit_code == 0
    assert f"published {broken_release.version}" in result.stdout
    assert "error" not in result.stderr
    assert resolve_release(broken_release.out) == broken_release.release.resolve()


@pytest.mark.parametrize(
    "breakage",
    [
        "t_zero",
        "orphan_weapon",
        "truncated",
        "bad_utf8_number",
        "page_ap",
        "page_cut",
        "bad_utf8_text",
        "page_utf8",
        "truncated_in_last_field",
    ],
)
def test_each_broken_row_is_in_quarantine_with_its_reason(
    breakage: str, broken_inputs: BrokenInputs, broken_release: Published
) -> None:
    expected = broken_inputs.breakages[breakage]
    rows = [
        q
        for q in _quarantine(broken_release.release)
        if q["source_id"] == expected.source_id and q["line"] == expected.line
    ]
    assert len(rows) == 1, rows
    assert rows[0]["stage"] == "parse"
    assert expected.reason.lower() in rows[0]["reason"].lower()


def test_the_quarantine_keeps_the_raw_row(broken_inputs: BrokenInputs, broken_release: Published) -> None:
    cut = broken_inputs.breakages["truncated"]
    row = next(
        q for q in _quarantine(broken_release.release) if (q["source_id"], q["line"]) == (cut.source_id, cut.line)
    )
    assert row["raw"].startswith("000002627|5|1||Khornate eviscerator|")
    assert row["table"] == "Datasheets_wargear.csv"


def test_quarantined_rows_are_not_published(broken_release: Published) -> None:
    release = broken_release.release
    profiles = set(pl.read_parquet(release / "model_profiles.parquet")["profile_id"])
    weapons = set(pl.read_parquet(release / "weapons.parquet")["weapon_id"])
    points = pl.read_parquet(release / "points.parquet").filter(pl.col("datasheet_id") == "wh:000000021")
    assert "wh:000000001:1" not in profiles and "wh:000002623:1" in profiles
    assert not [w for w in weapons if w.startswith("wh:000009999")]
    assert "wh:000002627:melee:khornate-eviscerator" not in weapons
    assert "wh:000002627:melee:chainblade" in weapons
    assert points.select("models", "cost").rows() == [(5, 105)]
    assert "page:space-marines:test-sergeant:ranged:boltgun" in weapons
    assert not [w for w in weapons if "hot-plasma" in w or "cut-row" in w]


def test_every_source_accounts_for_every_row(broken_inputs: BrokenInputs, broken_release: Published) -> None:
    sources = pl.read_parquet(broken_release.release / "sources.parquet")
    assert sources.filter(pl.col("rows_in") != pl.col("rows_curated") + pl.col("rows_quarantined")).is_empty()
    quarantined = pl.DataFrame(_quarantine(broken_release.release)).group_by("source_id").agg(pl.col("line").n_unique())
    counts = dict(quarantined.iter_rows())
    for source in sources.filter(pl.col("rows_quarantined") > 0).to_dicts():
        assert counts[source["source_id"]] == source["rows_quarantined"], source["source_id"]
    by_id = {s["source_id"]: s for s in sources.to_dicts()}
    wargear = broken_inputs.wahapedia / "Datasheets_wargear.csv"
    data_lines = [line for line in wargear.read_bytes().split(b"\n")[1:] if line.strip()]
    assert by_id["wahapedia_csv:Datasheets_wargear.csv"]["rows_in"] == len(data_lines) == 22 + 1
    assert by_id["wahapedia_csv:Datasheets_models.csv"]["rows_quarantined"] == 1
    assert by_id["page_export:900_broken_page.txt"]["rows_quarantined"] == 3


def test_the_quality_report_warns_about_the_broken_files(broken_release: Published) -> None:
    summary = _summary(broken_release.release)
    assert summary["passed"] is True and summary["critical_failures"] == 0
    share = _failed(summary, "sources", "expect_column_values_to_be_between(quarantined_share in [0, 0.05])")
    assert share["severity"] == "warning"
    flagged = {row["source_id"] for row in share["unexpected_rows"]}
    assert {
        "wahapedia_csv:Datasheets_models.csv",
        "wahapedia_csv:Datasheets_models_cost.csv",
        "wahapedia_csv:Datasheets_wargear.csv",
        "page_export:900_broken_page.txt",
    } <= flagged
    orphan = _failed(summary, "datasheets", "expect_column_values_to_be_null(without_model_profile)")
    assert orphan["severity"] == "warning"
    assert [row["datasheet_id"] for row in orphan["unexpected_rows"]] == ["wh:000000001"]


def test_the_manifest_carries_the_warnings_and_the_accounting(broken_release: Published) -> None:
    manifest = json.loads((broken_release.release / "manifest.json").read_text())
    failed = manifest["quality"]["failed"]
    assert manifest["quality"]["passed"] is True
    assert all(f["severity"] == "warning" for f in failed)
    assert {"table": "datasheets", "expectation": "expect_column_values_to_be_null(without_model_profile)"} in [
        {"table": f["table"], "expectation": f["expectation"]} for f in failed
    ]
    models = next(i for i in manifest["inputs"] if i["source_id"] == "wahapedia_csv:Datasheets_models.csv")
    assert (models["rows_in"], models["rows_curated"], models["rows_quarantined"]) == (5, 4, 1)


# --- a critical breach ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Breach:
    out: Path
    before: dict[str, str]
    after: dict[str, str]
    result: Result


@pytest.fixture(scope="module")
def breach(good_release: Published, wh_subset: Path, tmp_path_factory: pytest.TempPathFactory) -> Breach:
    """`dataslate run` over a good release with an export whose Datasheets.csv is only its header."""
    root = tmp_path_factory.mktemp("breach")
    wahapedia = root / "wahapedia"
    shutil.copytree(wh_subset, wahapedia)
    sheets = wahapedia / "Datasheets.csv"
    sheets.write_bytes(sheets.read_bytes().split(b"\n")[0] + b"\n")
    out = root / "curated"
    shutil.copytree(good_release.out, out, symlinks=True)
    before = snapshot(out)
    result = invoke("run", "--input", config.RAW_PAGES_DIR, "--input", wahapedia, "--out", out)
    return Breach(out, before, snapshot(out), result)


def test_a_critical_breach_exits_with_the_quality_code_and_one_message(breach: Breach) -> None:
    """Datasheets.csv cut to its header: the suites catch it, and so do the release checks against the
    previous release in the folder (Datasheets.csv emptied, datasheets 8 -> 3)."""
    message = one_error(breach.result, EXIT_QUALITY)
    assert EXIT_QUALITY == 3
    assert "✗ quality gates" in breach.result.stderr
    assert message.startswith("error: 4 critical quality gate(s) failed: sources: ")
    assert "expect_column_values_to_be_null(format_without_datasheets) failed on 18 of 21 rows" in message
    assert "release: input_files_not_emptied failed on 12 of 21 rows, e.g. [{'source_id': " in message
    tables = len(json.loads((breach.out / "manifest.json").read_text())["row_counts"]) - 1  # findings: not compared
    assert "{'source_id': 'wahapedia_csv:Datasheets.csv', 'previous': 5, 'now': 0}" in message
    assert f"release: tables_not_emptied failed on 4 of {tables} rows" in message
    assert f"release: row_count_drop_at_most(50%) failed on 20 of {tables} rows" in message
    kept = breach.out / ".rejected" / message.rsplit("/.rejected/", 1)[1].split("/")[0] / "quality"
    assert json.loads((kept / "summary.json").read_text())["critical_failures"] == 4


def test_a_critical_breach_leaves_the_previous_release_as_it_was(breach: Breach, good_release: Published) -> None:
    assert breach.after == breach.before
    assert staging_folders(breach.out) == []
    assert resolve_release(breach.out) == (breach.out / good_release.version).resolve()
    con = duckdb.connect(str(breach.out / config.DUCKDB_FILENAME), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM datasheets").fetchone() == (8,)
    finally:
        con.close()
