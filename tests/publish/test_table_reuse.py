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
from pipeline.publish.outdir import Publication
from pipeline.publish.previous import PreviousRelease
from pipeline.publish.table_reuse import CONTENTS_KIND, FEED_KIND
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
