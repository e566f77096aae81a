"""Files hashed ahead: a settled file is read once, and any change to it (even with its times set back) is hashed
again."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import runtime
from pipeline.cache import hashed
from pipeline.ids import file_sha256


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    hashed.forget_hashes()
    yield
    hashed.forget_hashes()


def _settled(path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """`path` holding `data`, last changed more than `SETTLED_NS` (made 20 ms here) before anything reads it."""
    monkeypatch.setattr(hashed, "SETTLED_NS", 20_000_000)
    path.write_bytes(data)
    time.sleep(0.05)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []

    def counted(path: str) -> str:
        reads.append(path)
        return file_sha256(path)

    monkeypatch.setattr(hashed, "stored_file_sha256", counted)
    return reads


def test_a_settled_file_hashed_ahead_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashed on the forked process (its reads are not this process's): here, the file is never read."""
    path = tmp_path / "part.bin"
    _settled(path, b"rows" * 1000, monkeypatch)
    reads = _counting(monkeypatch)
    ahead = hashed.hash_ahead([path, tmp_path / "missing.bin"])
    assert isinstance(ahead, hashed.HashedAhead)
    ahead.join()
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"rows" * 1000).hexdigest()
    assert reads == []


def test_without_fork_a_thread_hashes_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "part.bin"
    _settled(path, b"rows" * 1000, monkeypatch)
    reads = _counting(monkeypatch)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    ahead = hashed.hash_ahead([path, tmp_path / "missing.bin"])
    assert not isinstance(ahead, hashed.HashedAhead)
    ahead.join()
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"rows" * 1000).hexdigest()
    assert reads == [str(path)]


def test_hashes_serve_task_by_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files cut into tasks of about `AHEAD_TASK_BYTES`; a hash asked for takes those of the tasks already done,
    and a file changed after the process hashed it is hashed again here."""
    monkeypatch.setattr(hashed, "AHEAD_TASK_BYTES", 100)
    paths = [tmp_path / f"part-{n}.bin" for n in range(5)]
    for n, path in enumerate(paths):
        path.write_bytes(bytes([n]) * 60)
    monkeypatch.setattr(hashed, "SETTLED_NS", 20_000_000)
    time.sleep(0.05)
    assert [len(task) for task in hashed._tasks([str(p) for p in paths])] == [2, 2, 1]
    reads = _counting(monkeypatch)
    hashed.hash_ahead(paths).join()
    paths[4].write_bytes(b"changed")
    assert [hashed.unchanged_sha256(str(p)) for p in paths] == [file_sha256(str(p)) for p in paths]
    assert reads == [str(paths[4])]


@pytest.mark.parametrize("times_set_back", [False, True])
def test_a_file_changed_after_its_hash_is_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, times_set_back: bool
) -> None:
    """The same size, written in place, its modification time put back or not: the change time moved."""
    path = tmp_path / "part.bin"
    _settled(path, b"a" * 64, monkeypatch)
    before = os.stat(path)
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"a" * 64).hexdigest()
    with path.open("r+b") as handle:
        handle.write(b"XXXX")
    if times_set_back:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"XXXX" + b"a" * 60).hexdigest()


def test_a_file_changed_just_before_it_is_read_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written this instant: a change in the same clock tick would keep its times, so its hash is not kept."""
    path = tmp_path / "part.bin"
    path.write_bytes(b"new")
    reads = _counting(monkeypatch)
    hashed.unchanged_sha256(str(path))
    hashed.unchanged_sha256(str(path))
    assert reads == [str(path), str(path)]


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 5])
def test_a_stored_file_mapped_window_by_window_hashes_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """Windows of one page here, so files of several windows, a last window cut short and an empty file are hashed."""
    import mmap

    from pipeline import ids

    monkeypatch.setattr(ids, "HASH_WINDOW", mmap.ALLOCATIONGRANULARITY)
    path = tmp_path / "stored.bin"
    path.write_bytes(os.urandom(size))
    assert ids.stored_file_sha256(str(path)) == hashlib.sha256(path.read_bytes()).hexdigest() == file_sha256(str(path))


def _hash_nothing_for_a_minute(tasks: list[list[str]], writer: object) -> None:
    time.sleep(60)


def test_a_run_leaves_no_hashing_process_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hashing process still working when the run ends is ended with it (it holds the output folder's lock
    it inherited); what it had not sent is hashed here."""
    path = tmp_path / "part.bin"
    _settled(path, b"rows" * 1000, monkeypatch)
    monkeypatch.setattr(hashed, "_hash_tasks", _hash_nothing_for_a_minute)
    with hashed.hashing_stopped():
        ahead = hashed.hash_ahead([path])
        assert isinstance(ahead, hashed.HashedAhead) and not ahead.absorb()
    assert ahead.absorb()  # the process is gone
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"rows" * 1000).hexdigest()


def test_a_forked_process_leaves_the_hashing_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process forked while the hashing runs (the matchups' workers) checks hashes on its own: it neither reads
    the hashing process's results (they are this process's) nor tries to end a process that is not its child."""
    path = tmp_path / "part.bin"
    _settled(path, b"rows" * 1000, monkeypatch)
    ahead = hashed.hash_ahead([path])
    with runtime.forked_tasks(lambda p: hashed.unchanged_sha256(p), 1) as submit:
        assert submit(str(path)).result() == hashlib.sha256(b"rows" * 1000).hexdigest()
    ahead.join()
    reads = _counting(monkeypatch)
    assert hashed.unchanged_sha256(str(path)) == hashlib.sha256(b"rows" * 1000).hexdigest() and reads == []


def test_a_forked_process_starts_with_the_hashes_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashes the hashing process sent but no check took yet are taken before a fork: the forked process (a
    matchup worker re-costing cached files) does not read those files again."""
    path = tmp_path / "part.bin"
    _settled(path, b"rows" * 1000, monkeypatch)
    ahead = hashed.hash_ahead([path])
    assert isinstance(ahead, hashed.HashedAhead)
    deadline = time.monotonic() + 10
    while not (ahead._reader is not None and ahead._reader.poll()) and time.monotonic() < deadline:
        time.sleep(0.01)  # sent, not taken
    reads = _counting(monkeypatch)

    def checked(name: str) -> tuple[str, list[str]]:
        return hashed.unchanged_sha256(name), reads

    with runtime.forked_tasks(checked, 1) as submit:
        sha, read_there = submit(str(path)).result()
    assert sha == hashlib.sha256(b"rows" * 1000).hexdigest() and read_there == []


def test_the_hashing_process_never_waits_for_a_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 files' hashes (≈ 400 KB, over a default pipe's 64 KiB) all sent while no check reads them: the
    process ends by itself, and every hash is then taken without reading a file here."""
    monkeypatch.setattr(hashed, "SETTLED_NS", 20_000_000)
    paths = [tmp_path / f"part-{n:04d}.bin" for n in range(2000)]
    for n, path in enumerate(paths):
        path.write_bytes(n.to_bytes(4, "big"))
    time.sleep(0.05)
    ahead = hashed.hash_ahead(paths)
    assert isinstance(ahead, hashed.HashedAhead) and ahead._process is not None
    ahead._process.join(timeout=30)
    assert ahead._process.exitcode == 0
    reads = _counting(monkeypatch)
    assert hashed.unchanged_sha256(str(paths[-1])) == file_sha256(str(paths[-1])) and reads == []
