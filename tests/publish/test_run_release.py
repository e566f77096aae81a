"""Whole runs: a release holds every format, two runs give the same bytes, a kill changes nothing.

The runs are shared (each pays the quality stage): `good_release` (conftest), one
`dataslate run` subprocess killed mid-publish into a copy of it, and one later run
into the killed folder, which is also the determinism twin of `good_release`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline import __version__, config
from pipeline.ids import content_hash
from pipeline.publish.release import resolve_release
from pipeline.run import RunResult, run_pipeline
from tests.publish.releases import Published, duckdb_contents, release_files, sha256, snapshot, staging_folders

pytestmark = pytest.mark.slow

DATASLATE = Path(sys.executable).parent / "dataslate"
#: Upper bound for the subprocess to reach its staging folder (a guard, not a measurement).
STAGING_WAIT_S = 300


@dataclass(frozen=True)
class Killed:
    out: Path
    before: dict[str, str]
    after: dict[str, str]
    returncode: int
    stale: list[Path]


def _wait_for_staging(proc: subprocess.Popen[bytes], out: Path) -> Path:
    """Poll until the run's staging folder holds its DuckDB file (the release is being written)."""
    deadline = time.monotonic() + STAGING_WAIT_S
    while time.monotonic() < deadline:
        for staging in staging_folders(out):
            if (staging / config.DUCKDB_FILENAME).exists():
                return staging
        if proc.poll() is not None:
            pytest.fail(f"dataslate run ended ({proc.returncode}) before it staged a release")
        time.sleep(0.01)
    pytest.fail("dataslate run never staged a release")


@pytest.fixture(scope="module")
def killed(good_release: Published, good_inputs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Killed:
    """`dataslate run` SIGKILLed while its staging folder is being written, over a good release."""
    out = tmp_path_factory.mktemp("killed") / "curated"
    # without the cache: the same inputs would be an unchanged rerun (reused, no staging); this is a rebuild
    shutil.copytree(good_release.out, out, symlinks=True, ignore=shutil.ignore_patterns(config.CACHE_DIRNAME))
    before = snapshot(out)
    args = [str(DATASLATE), "run", "--out", str(out)]
    for path in good_inputs:
        args += ["--input", str(path)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_for_staging(proc, out)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    return Killed(out, before, snapshot(out), proc.returncode, staging_folders(out))


@pytest.fixture(scope="module")
def rerun(killed: Killed, good_inputs: list[Path]) -> RunResult:
    """The run after the kill, into the killed folder: same inputs as `good_release`."""
    return run_pipeline(good_inputs, killed.out)


# --- kill mid-publish -----------------------------------------------------------------------------


def test_the_run_was_killed_while_staging(killed: Killed) -> None:
    assert killed.returncode == -signal.SIGKILL
    assert len(killed.stale) == 1, "the killed run's staging folder is left behind (nothing cleans it up)"
    assert (killed.stale[0] / config.DUCKDB_FILENAME).is_file()


def test_a_kill_leaves_the_previous_release_and_latest_untouched(killed: Killed, good_release: Published) -> None:
    assert killed.after == killed.before
    assert killed.after[config.LATEST_NAME] == f"-> {good_release.version}"
    assert resolve_release(killed.out) == (killed.out / good_release.version).resolve()


def test_a_later_run_removes_the_stale_staging_folder_and_publishes(killed: Killed, rerun: RunResult) -> None:
    assert resolve_release(killed.out) == rerun.release.resolve()
    assert (killed.out / config.LATEST_NAME).readlink() == Path(rerun.version)
    assert json.loads((killed.out / "manifest.json").read_text())["version"] == rerun.version
    assert staging_folders(killed.out) == [], "the dead run's staging folder is removed, none is left"


# --- determinism -----------------------------------------------------------------------------------


def test_two_runs_on_the_same_inputs_give_identical_files(good_release: Published, rerun: RunResult) -> None:
    first, second = release_files(good_release.release), release_files(rerun.release)
    assert rerun.version == good_release.version
    assert first.keys() == second.keys()
    different = sorted(name for name in first if first[name] != second[name] and not name.endswith(".duckdb"))
    assert different == []
    kinds = {suffix: sum(name.endswith(suffix) for name in first) for suffix in (".parquet", ".ndjson", ".json")}
    assert kinds[".parquet"] >= 25 and kinds[".ndjson"] >= 20 and kinds[".json"] >= 20


def test_two_runs_give_identical_duckdb_contents(good_release: Published, rerun: RunResult) -> None:
    first = duckdb_contents(good_release.release / config.DUCKDB_FILENAME)
    second = duckdb_contents(rerun.release / config.DUCKDB_FILENAME)
    assert first.keys() == second.keys()
    assert {"weapons", "damage_matrix", "v_unit_cards", "v_weapon_vs_reference"} <= first.keys()
    assert [t for t in first if first[t] != second[t]] == []


def test_the_manifest_hashes_duckdb_contents_not_its_bytes(good_release: Published, rerun: RunResult) -> None:
    """DuckDB files are not byte-stable; the manifest must be, so it hashes the tables' rows instead."""
    manifest = json.loads((good_release.release / "manifest.json").read_text())
    assert config.DUCKDB_FILENAME not in manifest["files"]
    assert {"weapons", "points", "quarantine", "sources"} <= manifest["duckdb_contents_sha256"].keys()
    assert sha256(good_release.release / "manifest.json") == sha256(rerun.release / "manifest.json")


def test_the_version_derives_from_the_input_files_only(good_release: Published, good_inputs: list[Path]) -> None:
    files = sorted(p for folder in good_inputs for p in folder.iterdir() if p.suffix in {".txt", ".csv"})
    hashes = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in files)
    assert len(hashes) == 3 + 18
    assert good_release.version == "v" + content_hash(__version__, *hashes, length=12)


# --- what one release holds -----------------------------------------------------------------------


def test_the_manifest_lists_every_file_with_its_hash(good_release: Published) -> None:
    release = good_release.release
    manifest = json.loads((release / "manifest.json").read_text())
    on_disk = {k: v for k, v in release_files(release).items() if k not in {"manifest.json", config.DUCKDB_FILENAME}}
    assert manifest["files"] == on_disk
    assert manifest["version"] == good_release.version


def test_every_table_is_published_in_every_format_with_the_same_rows(
    good_release: Published, good_run: RunResult
) -> None:
    published, result = good_release, good_run
    release = published.release
    manifest = json.loads((release / "manifest.json").read_text())
    con = duckdb.connect(str(release / config.DUCKDB_FILENAME), read_only=True)
    try:
        for table, rows in result.row_counts.items():
            if table.startswith("damage_"):
                continue
            assert manifest["row_counts"][table] == rows, table
            assert pl.read_parquet(release / f"{table}.parquet").height == rows, table
            assert len((release / "feed" / f"{table}.ndjson").read_text().splitlines()) == rows, table
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == (rows,), table
            assert json.loads((release / "schemas" / f"{table}.schema.json").read_text())["title"] == table
    finally:
        con.close()
    assert result.row_counts["datasheets"] == 3 + 5
    assert result.row_counts["weapons"] == 12 + 22


def test_the_damage_matrix_is_hive_parquet_and_the_feed_has_its_reference_slice(
    good_release: Published, good_run: RunResult
) -> None:
    published, result = good_release, good_run
    matrix = pl.read_parquet(published.release / "damage_matrix" / "**" / "*.parquet", hive_partitioning=True)
    assert matrix.height == result.row_counts["damage_matrix"]
    assert matrix["weapon_id"].n_unique() == result.row_counts["weapons"]
    feed = pl.read_ndjson(published.release / "feed" / "damage_vs_reference.ndjson")
    assert feed.height == result.row_counts["damage_vs_reference"]
    assert feed["profile_id"].str.starts_with("ref:").all()


def test_one_feed_document_per_faction_has_one_card_per_unit(good_release: Published) -> None:
    """Lord Invocatus: one card, its page and Wahapedia datasheets nested; it leads the Khorne
    Berzerkers (the Wahapedia `leaders` row, resolved to unit ids both ways)."""
    folder = good_release.release / "feed" / "factions"
    documents = {p.name: json.loads(p.read_text()) for p in folder.glob("*.json")}
    names = {d["faction"]: sorted(u["name"] for u in d["units"]) for d in documents.values()}
    assert names["Orks"] == ["Nobz", "Warboss", "Wazdakka Gutsmek"]
    assert names["World Eaters"] == ["Khorne Berzerkers", "Lord Invocatus"]
    cards = {u["unit_id"]: u for u in documents["world-eaters.json"]["units"]}
    invocatus = cards["unit:world-eaters:lord-invocatus"]
    assert [s["datasheet_id"] for s in invocatus["sources"]] == ["wh:000002623", "page:world-eaters:lord-invocatus"]
    assert [(p["models"], p["cost"]) for p in invocatus["unit_points"]] == [(1, 110)]
    assert invocatus["leads"] == ["unit:world-eaters:khorne-berzerkers"]
    assert cards["unit:world-eaters:khorne-berzerkers"]["led_by"] == ["unit:world-eaters:lord-invocatus"]
    assert isinstance(invocatus["provenance"], dict)
    pistol = next(w for w in invocatus["weapons"] if w["name"] == "Bolt pistol")
    assert set(pistol["damage_vs_reference"]) == {"charged", "cover", "default", "half_range", "stationary"}
    assert documents["world-eaters.json"]["weapon_abilities"]["pistol"]["title"] == "Pistol"


def test_quality_results_and_page_are_in_the_release(good_release: Published, good_run: RunResult) -> None:
    quality = good_release.release / "quality"
    summary = json.loads((quality / "summary.json").read_text())
    assert summary["passed"] is True and summary["critical_failures"] == 0
    assert sorted(p.name for p in quality.iterdir()) == ["index.html", "summary.json"]
    assert good_run.reports.quality.as_dict()["expectations"] == summary["expectations"]


def test_the_damage_matrix_is_stored_before_the_gate_and_passes_it(
    good_release: Published, good_run: RunResult
) -> None:
    """Real rows (the seeds and a slice of the Wahapedia export): every cell summarised, no check failed."""
    summary = json.loads((good_release.release / "quality" / "summary.json").read_text())
    matrix = summary["tables"]["damage_matrix"]
    assert (matrix["status"], matrix["rows"]) == ("ok", good_run.row_counts["damage_matrix"])
    assert len(matrix["expectations"]) == 11 and all(e["success"] for e in matrix["expectations"])
    manifest = json.loads((good_release.release / "manifest.json").read_text())
    assert manifest["reports"]["damage_matrix_in_duckdb"] == "table"


def test_no_wall_clock_date_is_written_into_the_release(good_release: Published) -> None:
    today = date.today()
    stamps = [today.isoformat(), today.strftime("%Y%m%d"), today.strftime("%d.%m.%Y")]
    for path in good_release.release.rglob("*"):
        if path.is_file() and path.suffix in {".json", ".ndjson", ".html", ".css", ".js"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not [s for s in stamps if s in text], path


def test_every_source_accounts_for_its_rows(good_release: Published) -> None:
    sources = pl.read_parquet(good_release.release / "sources.parquet")
    assert sources.height == 3 + 18
    unbalanced = sources.filter(pl.col("rows_in") != pl.col("rows_curated") + pl.col("rows_quarantined"))
    assert unbalanced.is_empty()
    sheets = sources.row(by_predicate=pl.col("source_id") == "wahapedia_csv:Datasheets.csv", named=True)
    assert (sheets["rows_in"], sheets["rows_curated"]) == (5, 5)


def test_published_ids_are_plain_strings_to_every_reader(good_release: Published) -> None:
    """The matrix holds its ids as Polars Enums in memory; in the files they are strings, so a
    Polars join of the matrix to `weapons` works (it failed on an Enum), and pyarrow and DuckDB agree."""
    import pyarrow.parquet as pq

    release = good_release.release
    matrix = pl.read_parquet(release / "damage_matrix" / "**" / "*.parquet", hive_partitioning=True)
    weapons = pl.read_parquet(release / "weapons.parquet")
    assert matrix.schema["weapon_id"] == pl.String() and matrix.schema["profile_id"] == pl.String()
    assert matrix.join(weapons, on="weapon_id", how="inner").height == matrix.height
    vs_reference = pl.read_parquet(release / "damage_vs_reference.parquet")
    assert vs_reference.join(weapons, on="weapon_id", how="anti").is_empty()
    part = next((release / "damage_matrix").glob("*/part-00000.parquet"))
    assert str(pq.read_schema(part).field("weapon_id").type) == "string"
    con = duckdb.connect()
    try:
        (kind,) = con.execute("SELECT typeof(weapon_id) FROM read_parquet(?) LIMIT 1", [str(part)]).fetchone() or ("",)
    finally:
        con.close()
    assert kind == "VARCHAR"
