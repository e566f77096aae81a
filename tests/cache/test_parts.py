"""`PartCache` (`pipeline/cache/parts.py`): part files kept by content key, placed or read only while their
bytes still hash to their entry, and pruned to what a run used."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache


def _file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_kept_then_placed_and_read(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "things")
    kept = cache.keep("k1", _file(tmp_path / "release" / "a.parquet", "one"), {"rows": 3})
    assert cache.kept == cache.used == {"k1"} and kept.bytes == 3
    later = PartCache(tmp_path / "cache", "things")
    placed = later.place("k1", tmp_path / "next" / "sub" / "a.parquet")
    assert placed is not None and placed == kept and placed.meta == {"rows": 3}
    assert (tmp_path / "next" / "sub" / "a.parquet").read_text() == "one"
    found = later.get("k1")
    assert found is not None and found[0].read_text() == "one" and found[1] == kept
    assert later.used == {"k1"} and later.kept == set()
    assert later.place("k2", tmp_path / "next" / "b.parquet") is None and later.get("k2") is None


def test_no_folder_never_hits_and_keeps_nothing(tmp_path: Path) -> None:
    cache = PartCache(None, "things")
    kept = cache.keep("k", _file(tmp_path / "a", "x"))
    assert kept.bytes == 1 and cache.place("k", tmp_path / "b") is None and cache.get("k") is None
    assert cache.used == set() and cache.prune() == 0


def test_a_changed_or_missing_file_is_ignored_with_a_warning(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "things")
    cache.keep("k1", _file(tmp_path / "a", "one"))
    cache.keep("k2", _file(tmp_path / "b", "two"))
    (tmp_path / "a").write_text("ONE")  # a hard link: the cached bytes change too
    blob = tmp_path / "cache" / "parts" / "things" / "k2.bin"
    os.unlink(blob)
    later = PartCache(tmp_path / "cache", "things")
    with pytest.warns(CacheWarning, match="cache part ignored"):
        assert later.place("k1", tmp_path / "c") is None
    with pytest.warns(CacheWarning, match="missing or changed"):
        assert later.get("k2") is None
    assert later.used == set() and not (tmp_path / "c").exists()


def test_entry_keys_and_a_file_written_in_place(tmp_path: Path) -> None:
    """`entry_keys` lists the keys with an entry (no file read: `get` checks it); `keep_written` records the
    bytes a writer put where the cache keeps them, with their hash and size."""
    cache = PartCache(tmp_path / "cache", "things")
    assert cache.entry_keys() == frozenset() and PartCache(None, "things").entry_keys() == frozenset()
    cache.keep_bytes("k1", b"one")
    cache.keep_written("k2", lambda path: path.write_bytes(b"three"), {"rows": 2})
    PartCache(tmp_path / "cache", "others").keep_bytes("k3", b"x")
    later = PartCache(tmp_path / "cache", "things")
    assert later.entry_keys() == {"k1", "k2"}
    found = later.get("k2")
    assert found is not None and found[0].read_bytes() == b"three"
    assert (found[1].bytes, found[1].meta) == (5, {"rows": 2}) and cache.kept == {"k1", "k2"}


def test_prune_keeps_what_the_run_used_or_claimed(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "things")
    for key in ("k1", "k2", "k3"):
        cache.keep(key, _file(tmp_path / key, key))
    other = PartCache(tmp_path / "cache", "other")
    other.keep("k9", _file(tmp_path / "k9", "k9"))
    run = PartCache(tmp_path / "cache", "things")
    assert run.get("k1") is not None
    run.claim(["k3"])  # kept by a forked worker of this run
    assert run.prune() == 1
    folder = tmp_path / "cache" / "parts" / "things"
    assert sorted(p.name for p in folder.iterdir()) == ["k1.bin", "k1.json", "k3.bin", "k3.json"]
    assert (tmp_path / "cache" / "parts" / "other" / "k9.bin").exists()  # another kind is not touched


def test_a_placed_file_is_a_link_not_a_copy(tmp_path: Path) -> None:
    cache = PartCache(tmp_path / "cache", "things")
    path = _file(tmp_path / "release" / "a.parquet", "one")
    cache.keep("k1", path)
    dest = tmp_path / "next" / "a.parquet"
    cache.place("k1", dest)
    assert os.stat(dest).st_ino == os.stat(path).st_ino
