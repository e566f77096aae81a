"""Release folders: staging, atomic rename, latest switch, failure leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.errors import PublishError
from pipeline.publish import release
from pipeline.publish.release import fsync_tree, resolve_release, staging_release, switch_latest, version_id
from pipeline.runtime import sync_file_system


def _release(out: Path, version: str, text: str) -> None:
    with staging_release(out, version) as staging:
        (staging / "dataslate.duckdb").write_text(text)
        (staging / "manifest.json").write_text("{}")


def test_version_id_depends_on_inputs_only() -> None:
    assert version_id(["b", "a"], "0.1") == version_id(["a", "b"], "0.1")
    assert version_id(["a"], "0.1") != version_id(["a", "c"], "0.1")
    assert version_id(["a"], "0.1").startswith("v") and len(version_id(["a"], "0.1")) == 13


def test_latest_points_at_the_newest_release_and_links_follow(tmp_path: Path) -> None:
    _release(tmp_path, "v1", "one")
    _release(tmp_path, "v2", "two")
    assert (tmp_path / "latest").resolve() == (tmp_path / "v2").resolve()
    assert (tmp_path / "dataslate.duckdb").read_text() == "two"
    assert resolve_release(tmp_path) == (tmp_path / "v2").resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataslate.duckdb", "latest", "manifest.json", "v1", "v2"]


def test_a_failure_while_staging_changes_nothing(tmp_path: Path) -> None:
    _release(tmp_path, "v1", "one")
    with pytest.raises(RuntimeError), staging_release(tmp_path, "v2") as staging:
        (staging / "dataslate.duckdb").write_text("half")
        raise RuntimeError("crash mid-publish")
    assert (tmp_path / "latest").resolve() == (tmp_path / "v1").resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataslate.duckdb", "latest", "manifest.json", "v1"]


def test_rebuilding_a_version_never_touches_the_existing_folder(tmp_path: Path) -> None:
    _release(tmp_path, "v1", "one")
    _release(tmp_path, "v1", "one")  # same manifest: the same release, kept as it is
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataslate.duckdb", "latest", "manifest.json", "v1"]
    with staging_release(tmp_path, "v1") as staging:  # other contents: published beside it
        (staging / "dataslate.duckdb").write_text("again")
        (staging / "manifest.json").write_text('{"other": 1}')
    newest = (tmp_path / "latest").resolve()
    assert newest.name.startswith("v1-") and (newest / "dataslate.duckdb").read_text() == "again"
    assert (tmp_path / "v1" / "dataslate.duckdb").read_text() == "one"


def test_a_real_latest_folder_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "latest").mkdir()
    with pytest.raises(PublishError):
        switch_latest(tmp_path, "v1")


def _recorded_fsyncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Three files in two folders under tmp_path; the paths `fsync_tree(tmp_path)` flushes one by one, in order."""
    for name in ("a/x.txt", "a/b/y.txt", "z.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    flushed: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        flushed.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    fsync_tree(tmp_path)
    return flushed


def test_a_linux_file_system_is_flushed_in_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`syncfs` flushes every file and folder of the release's file system at once: no fsync per path."""
    assert sync_file_system(tmp_path)
    assert _recorded_fsyncs(tmp_path, monkeypatch) == []


def test_every_file_is_flushed_before_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `syncfs` the flush runs on threads: each path is still flushed once, and a folder only after all
    the files."""
    monkeypatch.setattr(release, "sync_file_system", lambda path: False)
    flushed = _recorded_fsyncs(tmp_path, monkeypatch)
    files = {str(tmp_path / n) for n in ("a/x.txt", "a/b/y.txt", "z.txt")}
    folders = {str(tmp_path), str(tmp_path / "a"), str(tmp_path / "a/b")}
    assert sorted(flushed) == sorted(files | folders)
    assert set(flushed[:3]) == files
