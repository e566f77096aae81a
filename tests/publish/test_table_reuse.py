"""Unchanged tables, found by their Parquet file's hash, reuse their feed file and DuckDB contents' hash from the
cache, and count as unchanged since the previous release without being compared: the release is the one a run
without a cache writes, byte for byte."""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path

import polars as pl
import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.publish import contents
from pipeline.publish.outdir import Publication
from pipeline.publish.previous import PreviousRelease
from pipeline.publish.table_reuse import CONTENTS_KIND, FEED_KIND, TableReuse
from pipeline.publish.writer import Published, change_summary, write_release
from pipeline.quality.report import QualitySummary
from pipeline.reports import RunReports
from pipeline.store import store_stage
from pipeline.store.parquet import write_parquet_tables
from tests.seed_frames import SeedStages, renamed_weapon, seed_stages


@pytest.fixture(scope="module")
def built() -> SeedStages:
    return seed_stages()


def _publish(built: SeedStages, frames: Mapping[str, pl.DataFrame], release: Path, cache: Path | None) -> Published:
    release.mkdir(parents=True)
    stored = store_stage(frames, built.damage, release)
    quality = QualitySummary(passed=True, expectations=0, critical_failures=0, warnings=0, failed=())
    reports = RunReports(*built.reports, built.damage.report, stored, quality)
    publication = Publication(1, None)
    return write_release(
        release, "vtest", frames, built.damage, reports, publication, cache=cache, tables=stored.table_files
    )


def _files(release: Path) -> dict[str, bytes]:
    return {
        p.relative_to(release).as_posix(): p.read_bytes()
        for p in sorted(release.rglob("*"))
        if p.is_file() and p.suffix != ".duckdb"
    }


def _placed(published: Published) -> set[str]:
    """Keys of the feed files this publish placed from the cache (used, not kept)."""
    return published.reuse.feed.used - published.reuse.feed.kept


def test_an_unchanged_table_reuses_its_feed_file_and_contents_hash(built: SeedStages, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _publish(built, built.frames, tmp_path / "first", cache)
    tables = len(first.reuse.parquet)
    assert (len(first.reuse.feed.kept), len(_placed(first))) == (tables, 0)
    assert len(first.reuse.contents.kept) == tables  # every table with a Parquet file is a DuckDB table here

    changed = renamed_weapon(built.frames)
    again = _publish(built, changed, tmp_path / "again", cache)
    assert len(_placed(again)) == tables - 1  # all but `weapons`
    assert [k for k in again.reuse.feed.kept] == [again.reuse.key(FEED_KIND, "weapons")]
    assert again.reuse.contents.kept == {again.reuse.key(CONTENTS_KIND, "weapons")}
    assert again.manifest["duckdb_contents_sha256"]["weapons"] != first.manifest["duckdb_contents_sha256"]["weapons"]

    cold = _publish(built, changed, tmp_path / "cold", None)
    assert _files(tmp_path / "again") == _files(tmp_path / "cold")  # manifest.json included
    assert again.manifest == cold.manifest


def test_a_cached_feed_file_or_hash_changed_in_place_is_not_trusted(built: SeedStages, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _publish(built, built.frames, tmp_path / "first", cache)
    (tmp_path / "first" / "feed" / "units.ndjson").write_text("{}\n")  # the release's file is the cache's link
    blob = next((cache / "parts" / CONTENTS_KIND).rglob("*.bin"))
    blob.write_text("0" * 64)
    with pytest.warns(CacheWarning, match="missing or changed"):
        again = _publish(built, built.frames, tmp_path / "again", cache)
    assert len(again.reuse.feed.kept) == 1 and len(again.reuse.contents.kept) == 1
    _publish(built, built.frames, tmp_path / "cold", None)
    assert _files(tmp_path / "again") == _files(tmp_path / "cold")
    assert again.manifest["duckdb_contents_sha256"] == first.manifest["duckdb_contents_sha256"]


def test_without_a_cache_nothing_is_kept_or_placed(built: SeedStages, tmp_path: Path) -> None:
    published = _publish(built, built.frames, tmp_path / "release", None)
    assert published.reuse.feed.used == set() and published.reuse.contents.used == set()
    assert not any(tmp_path.rglob("parts"))


def test_a_table_whose_parquet_is_the_previous_releases_is_unchanged(built: SeedStages, tmp_path: Path) -> None:
    previous_folder = tmp_path / "previous"
    previous_folder.mkdir()
    write_parquet_tables(built.frames, previous_folder)
    previous = PreviousRelease(previous_folder, "vprev")
    changed = renamed_weapon(built.frames)
    current = tmp_path / "current"
    current.mkdir()
    parquet = write_parquet_tables(changed, current)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skipped = change_summary(previous, changed, parquet)
    compared = change_summary(previous, changed)  # every table compared row by row
    assert skipped == compared
    assert skipped["tables"]["weapons"] == {"added": 0, "removed": 0, "changed": 1}
    assert skipped["tables"]["units"] == {"added": 0, "removed": 0, "changed": 0}
    assert json.dumps(skipped, sort_keys=True) == json.dumps(compared, sort_keys=True)


def test_a_large_table_is_compared_in_the_pieces_that_changed(
    built: SeedStages, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(contents, "PIECED_MIN_ROWS", 10)
    table = "damage_vs_reference"
    frames = built.frames
    old = frames[table]
    units = old["unit_id"].unique(maintain_order=True).to_list()
    assert (old.height, len(units)) == (480, 3)  # the seed pages: three units with weapons
    first = old["weapon_id"][0]
    new = old.filter(pl.col("unit_id") != units[-1]).with_columns(
        damage=pl.when(pl.col("weapon_id") == first).then(pl.col("damage") + 1).otherwise("damage")
    )
    changed = {**frames, table: new}
    previous_folder, current = tmp_path / "previous", tmp_path / "current"
    previous_folder.mkdir()
    current.mkdir()
    before, after = write_parquet_tables(frames, previous_folder), write_parquet_tables(changed, current)
    previous = PreviousRelease(previous_folder, "vprev")
    pieces_before = contents.Pieces.of(table, old)
    assert pieces_before is not None
    reuse = TableReuse.of(tmp_path / "cache", before)  # the previous run's cache: its table's hash and pieces
    reuse.contents_hash(table, lambda: ("hash", pieces_before.keys))
    current_reuse = TableReuse.of(tmp_path / "cache", after)
    in_pieces = change_summary(previous, changed, after, current_reuse)["tables"][table]
    whole = change_summary(previous, changed, after)["tables"][table]
    removed = old.filter(pl.col("unit_id") == units[-1]).height
    assert (
        in_pieces
        == whole
        == {"added": 0, "removed": removed, "changed": old.filter(pl.col("weapon_id") == first).height}
    )
    pieces_after = contents.Pieces.of(table, new)
    assert pieces_after is not None  # a cache that recorded the previous table's pieces as the current ones ...
    pretend = TableReuse.of(tmp_path / "other", before)
    pretend.contents_hash(table, lambda: ("hash", pieces_after.keys))
    trusting = change_summary(previous, changed, after, TableReuse.of(tmp_path / "other", after))
    assert trusting["tables"][table] == {"added": 0, "removed": 0, "changed": 0}  # ... so no piece is compared
