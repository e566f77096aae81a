"""Part files: placed from the cache only while their bytes hash as recorded; pruned to what a run used."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.ids import file_sha256


def _written(folder: Path, text: str = "cells") -> Path:
    path = folder / "release" / f"{text}.parquet"  # a new file each: a kept file is linked, not copied
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_kept_part_is_placed_with_its_hash_and_meta(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "m")
    kept = cache.keep("k1", _written(tmp_path), {"rows": 3})
    dest = tmp_path / "next" / "scenario=x" / "part.parquet"
    placed = PartCache(tmp_path / "cache", "m").place("k1", dest)
    assert placed == kept
    assert placed.sha256 == file_sha256(str(dest)) and placed.bytes == 5 and placed.meta == {"rows": 3}
    assert dest.read_text() == "cells"


def test_without_a_folder_nothing_is_placed_but_the_hash_is_taken(tmp_path: Path) -> None:
    cache = PartCache(None, "m")
    path = _written(tmp_path)
    assert cache.keep("k1", path).sha256 == file_sha256(str(path))
    assert cache.place("k1", tmp_path / "other") is None
    assert cache.prune() == 0


def test_a_missing_key_is_a_quiet_miss(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    assert PartCache(tmp_path, "m").place("absent", tmp_path / "x") is None
    assert not recwarn.list


def _rewrite_in_place(blob: Path) -> None:
    """What a user editing a published (hard-linked) file does to the cached bytes."""
    with blob.open("r+") as handle:
        handle.write("CELLS")


@pytest.mark.parametrize("damage", [_rewrite_in_place, Path.unlink, lambda p: p.write_text("longer text")])
def test_a_changed_or_missing_file_is_ignored_with_a_warning(tmp_path: Path, damage: object) -> None:
    cache = PartCache(tmp_path / "cache", "m")
    cache.keep("k1", _written(tmp_path))
    (blob,) = (tmp_path / "cache" / "parts" / "m").glob("*.bin")
    damage(blob)  # type: ignore[operator]
    with pytest.warns(CacheWarning, match="missing or changed"):
        assert PartCache(tmp_path / "cache", "m").place("k1", tmp_path / "next" / "part.parquet") is None
    assert not (tmp_path / "next" / "part.parquet").exists()


def test_a_placed_file_is_a_link_not_a_copy(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "m")
    path = _written(tmp_path)
    cache.keep("k1", path)
    dest = tmp_path / "next" / "part.parquet"
    cache.place("k1", dest)
    assert os.stat(dest).st_ino == os.stat(path).st_ino


def test_prune_keeps_only_what_this_run_used(tmp_path: Path) -> None:
    first = PartCache(tmp_path / "cache", "m")
    for key in ("a", "b", "c"):
        first.keep(key, _written(tmp_path, key))
    other_kind = PartCache(tmp_path / "cache", "n")
    other_kind.keep("a", _written(tmp_path, "n"))
    second = PartCache(tmp_path / "cache", "m")
    second.place("b", tmp_path / "next" / "b")
    second.keep("d", _written(tmp_path, "d"))
    assert second.prune() == 2  # a and c
    left = sorted(p.name for p in (tmp_path / "cache" / "parts" / "m").iterdir())
    assert left == ["b.bin", "b.json", "d.bin", "d.json"]
    assert PartCache(tmp_path / "cache", "n").place("a", tmp_path / "n") is not None  # other kinds untouched
