"""The matrix's cache key: it moves with every engine input and nothing else, and a cached scenario file is
placed only while its bytes are those recorded, giving the release a cold run gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.damage import SCENARIOS, partition_path, prepare_damage
from tests.damage.test_matrix import frames

Frames = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]


def _when(frame: pl.DataFrame, key: str, value: str, column: str, new: object) -> pl.DataFrame:
    return frame.with_columns(pl.when(pl.col(key) == value).then(pl.lit(new)).otherwise(column).alias(column))


def _stronger_plasma(f: Frames) -> Frames:
    return _when(f[0], "weapon_id", "plasma", "strength", "9"), *f[1:]


def _no_gatler_sustained_hits(f: Frames) -> Frames:
    return f[0], f[1].filter(~((pl.col("weapon_id") == "gatler") & (pl.col("ability") == "sustained_hits"))), *f[2:]


def _tougher_trukk(f: Frames) -> Frames:
    return f[0], f[1], _when(f[2], "profile_id", "trukk", "toughness", 9), f[3]


def _stealthy_boy(f: Frames) -> Frames:
    return f[0], f[1], f[2].with_columns((pl.col("profile_id") == "boy").alias("stealth")), f[3]


def _dearer(f: Frames) -> Frames:
    return *f[:3], f[3].with_columns(pl.col("cost") + 1)


def _line_numbers(f: Frames) -> Frames:  # where a row sat in its file: no engine input
    return f[0].with_columns(pl.lit(7).alias("line")), f[1], f[2].with_columns(pl.lit(3).alias("line")), f[3]


@pytest.mark.parametrize(
    ("change", "moves"),
    [(_stronger_plasma, True), (_no_gatler_sustained_hits, True), (_tougher_trukk, True), (_stealthy_boy, True),
     (_dearer, True), (_line_numbers, False)],
)  # fmt: skip
def test_the_digest_moves_with_an_engine_input(change: Callable[[Frames], Frames], moves: bool) -> None:
    before = prepare_damage(*frames()).inputs_digest
    assert (prepare_damage(*change(frames())).inputs_digest != before) is moves


def test_an_unchanged_matrix_is_placed_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = prepare_damage(*frames()).write_parquet(tmp_path / "first", cache=PartCache(cache, "damage_matrix"))
    assert [w.from_cache for w in first] == [False] * len(SCENARIOS)
    again = prepare_damage(*frames()).write_parquet(tmp_path / "again", cache=PartCache(cache, "damage_matrix"))
    assert [w.from_cache for w in again] == [True] * len(SCENARIOS)
    assert [w.file for w in again] == [w.file for w in first]  # the hashes recorded as written
    changed = prepare_damage(*_stronger_plasma(frames()))
    written = changed.write_parquet(tmp_path / "changed", cache=PartCache(cache, "damage_matrix"))
    assert [w.from_cache for w in written] == [False] * len(SCENARIOS)
    changed.write_parquet(tmp_path / "cold")
    for scenario in SCENARIOS:
        assert partition_path(tmp_path / "changed", scenario).read_bytes() == (
            partition_path(tmp_path / "cold", scenario).read_bytes()
        )


def test_a_cached_file_changed_in_place_is_written_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    prepare_damage(*frames()).write_parquet(tmp_path / "first", cache=PartCache(cache, "damage_matrix"))
    published = partition_path(tmp_path / "first", "cover")
    with published.open("r+b") as handle:  # the release's file is the cache's (a hard link)
        handle.write(b"XXXX")
    with pytest.warns(CacheWarning, match="missing or changed"):
        written = prepare_damage(*frames()).write_parquet(tmp_path / "again", cache=PartCache(cache, "damage_matrix"))
    assert [w.scenario for w in written if not w.from_cache] == ["cover"]
    prepare_damage(*frames()).write_parquet(tmp_path / "cold")
    for scenario in SCENARIOS:
        assert partition_path(tmp_path / "again", scenario).read_bytes() == (
            partition_path(tmp_path / "cold", scenario).read_bytes()
        )
