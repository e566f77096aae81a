"""The matrix's summary added up file by file: the frame the query gives on the whole matrix, each file's row
kept, and a release whose points changed scans only the files holding that datasheet's weapons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from pipeline import config
from pipeline.cache.parts import PartCache
from pipeline.damage import matrix_files
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage
from pipeline.quality.batches import existing_tables, summary_query
from pipeline.quality.file_summaries import summary_by_file
from pipeline.quality.memo import QualityMemo
from pipeline.quality.pandas_frames import as_pandas
from pipeline.quality.stage import quality_gate
from pipeline.quality.suites import load_suites
from pipeline.run import run_pipeline
from pipeline.store import load, store_stage
from pipeline.store.load import open_store
from tests.quality.test_memo import _report
from tests.seed_frames import Frames, SeedStages, seed_stages

#: Lord Invocatus of the seed pages (`raw/pages/`: 140 points, one model; three weapons).
LORD = "page:world-eaters:lord-invocatus"


@pytest.fixture(scope="module")
def built() -> SeedStages:
    return seed_stages()


@pytest.fixture(autouse=True)
def _files_and_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several files a scenario (12 weapons, 3 a file on average) and the matrix as a view over them."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 3)
    monkeypatch.setattr(load, "DAMAGE_TABLE_MAX_ROWS", 0)


def _dearer_lord(frames: Frames) -> Frames:
    points = frames["points"].with_columns(
        pl.when(pl.col("datasheet_id") == LORD).then(pl.col("cost") + 1).otherwise(pl.col("cost")).alias("cost")
    )
    changed = {**frames, "points": points}
    return {**changed, "damage_vs_reference": damage_vs_reference(damage_stage(changed), changed)}


def _stored(frames: Frames, release: Path, cache: Path) -> dict[str, str]:
    release.mkdir(parents=True)
    stored = store_stage(frames, damage_stage(frames), release, PartCache(cache, "damage_matrix"))
    return {**stored.matrix_hashes, **stored.table_hashes}


def _contents(release: Path) -> set[bytes]:
    return {path.read_bytes() for path in (release / "damage_matrix").rglob("*.parquet")}


def _summaries(release: Path, memo: QualityMemo, table: str = "damage_matrix") -> tuple[object, object]:
    """The summary added up by file, and the query's on the whole relation."""
    suite = next(s for s in load_suites() if s.table == table)
    with open_store(release / "dataslate.duckdb") as con:
        present = existing_tables(con)
        by_file = summary_by_file(con, suite, present, memo)
        assert by_file is not None
        return as_pandas(by_file), as_pandas(con.sql(summary_query(suite, present)))


def _pointless_lord(frames: Frames) -> Frames:
    """No points for Lord Invocatus: his 3 weapons' 24 cells a scenario have no damage per 100 points."""
    changed = {**frames, "points": frames["points"].filter(pl.col("datasheet_id") != LORD)}
    return {**changed, "damage_vs_reference": damage_vs_reference(damage_stage(changed), changed)}


@pytest.mark.parametrize(("change", "share"), [(lambda f: f, 0.0), (_pointless_lord, 0.25)])
def test_the_summary_added_up_by_file_is_the_whole_query(
    built: SeedStages, tmp_path: Path, change: Callable[[Frames], Frames], share: float
) -> None:
    """Every file's row added up: the whole query's frame, value for value and type for type (the NULL share of
    damage per 100 points recomputed from the files' counts: 24 of 96 cells a scenario without points)."""
    cache, release = tmp_path / "cache", tmp_path / "release"
    known = _stored(change(built.frames), release, cache)
    files = sorted((release / "damage_matrix").rglob("*.parquet"))
    assert len(files) == 5 * 5  # 12 weapons cut where their ids hash to a multiple of 3: 1, 1, 5, 3 and 2
    memo = QualityMemo.of(cache, release, known)
    added, whole = _summaries(release, memo)
    assert list(added.dtypes) == list(whole.dtypes) and added.equals(whole)  # type: ignore[attr-defined]
    assert set(whole["null_efficiency_share"]) == {share}  # type: ignore[index]
    # one row per distinct file: a file without Lance weapons is the same in `default` and `charged`, ...
    assert len(_contents(release)) == 11 and memo.file_summaries == (11, 0)
    again = QualityMemo.of(cache, release, known)
    assert _summaries(release, again)[0].equals(whole)  # type: ignore[attr-defined]
    assert again.file_summaries == (0, 11)


def test_a_points_change_scans_only_the_files_of_its_weapons(built: SeedStages, tmp_path: Path) -> None:
    """Lord Invocatus's weapons lie in the second and third file of each scenario: those 10 files are written
    again (5 distinct contents: scanned), the 6 other contents are read back, and the quality report is byte
    for byte the one a run without a cache writes."""
    cache = tmp_path / "cache"
    first = tmp_path / "first"
    quality_gate(first, memo=QualityMemo.of(cache, first, _stored(built.frames, first, cache)))
    changed, cold = _dearer_lord(built.frames), tmp_path / "cold"
    release = tmp_path / "changed"
    memo = QualityMemo.of(cache, release, _stored(changed, release, cache))
    quality_gate(release, memo=memo)
    new = _contents(release) - _contents(first)
    assert memo.file_summaries == (len(new), len(_contents(release) - new)) == (5, 6)
    _stored(changed, cold, tmp_path / "cold-cache")
    quality_gate(cold, memo=QualityMemo.of(None, cold, {}))
    assert _report(release) == _report(cold)


def test_a_run_adds_up_both_summaries_by_file(tmp_path: Path) -> None:
    """A run of the seed pages and `Chaos - World Eaters.cat` with its unit x unit table: `unit_matchups` (key
    scenario and phase; a file per attacker faction, 142, 142 and 8,449 rows) and the matrix both added up
    by file, equal to their whole queries."""
    result = run_pipeline([config.RAW_PAGES_DIR, config.bsdata_dir() / "Chaos - World Eaters.cat"], tmp_path / "out")
    release = result.release
    matchups = sorted((release / "unit_matchups").rglob("*.parquet"))
    assert [pl.scan_parquet(p).select(pl.len()).collect().item() for p in matchups] == [142, 142, 8449]
    matrix = {p.read_bytes() for p in (release / "damage_matrix").rglob("*.parquet")}
    assert result.partitions["quality_files"] == (len(matrix) + 3, 0)
    for table in ("unit_matchups", "damage_matrix"):
        added, whole = _summaries(release, QualityMemo.of(tmp_path / "cache", release, {}), table)
        assert list(added.dtypes) == list(whole.dtypes) and added.equals(whole)  # type: ignore[attr-defined]
        assert len(whole) == {"unit_matchups": 2, "damage_matrix": 5}[table]  # type: ignore[arg-type]


@pytest.mark.parametrize("metadata", [{}, {b"dataslate.file_keys": b"[]"}, {b"dataslate.file_keys": b"not json"}])
def test_a_bundle_that_does_not_add_up_is_ignored(
    built: SeedStages, tmp_path: Path, metadata: dict[bytes, bytes]
) -> None:
    """The suite's kept rows in one entry, replaced (bytes and entry alike) by rows without file keys, with
    none, or with unreadable ones: ignored with a warning, every file scanned again, the same summary."""
    import pyarrow as pa

    from pipeline.cache.entries import CacheWarning
    from pipeline.cache.fingerprint import code_fingerprint, key_of

    cache, release = tmp_path / "cache", tmp_path / "release"
    known = _stored(built.frames, release, cache)
    whole = _summaries(release, QualityMemo.of(cache, release, known))[1]
    memo = QualityMemo.of(cache, release, known)
    rows = pa.table({"scenario": ["default"]}).replace_schema_metadata(metadata)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, rows.schema) as writer:
        writer.write_table(rows)
    memo.by_file.keep_bytes(
        key_of(code_fingerprint(), "quality_files", "bundle", "damage_matrix"), sink.getvalue().to_pybytes()
    )
    with pytest.warns(CacheWarning, match="file summaries ignored"):
        added = _summaries(release, memo)[0]
    assert added.equals(whole) and memo.file_summaries == (11, 0)  # type: ignore[attr-defined]
