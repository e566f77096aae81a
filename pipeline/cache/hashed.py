"""sha256 of files that are never changed once written (cache blobs, a release's files), remembered with their
identity, so that a file hashed ahead is not read again when it is checked (docs/releases.md#hashed-ahead).

A run checks every cached file it places against the sha256 recorded beside it (≈ 1.2 GB on the shared corpora
when one catalogue changed, 2 CPU s of sha256). Its first stages keep one core busy, so `hash_ahead` reads and
hashes the files the run is likely to place on a forked process at a lower priority meanwhile, which sends each
task's hashes back (a thread of this process, as before, handed this process's GIL back and forth with the
run's thread at every file); the check itself is unchanged. A file's identity is its device, inode, size,
modification and change times: a file rewritten or replaced since it was hashed is hashed again (the change time
cannot be set back by any user call). A hash is remembered only for a file last changed well before it was read
(`SETTLED_NS`), so that a change in the same tick of the file system's clock as the read cannot go unseen.
"""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from pipeline.ids import stored_file_sha256
from pipeline.runtime import forked_process, lower_thread_priority

#: How long before it is read a file must have last changed for its hash to be remembered (file system clocks
#: tick every few milliseconds).
SETTLED_NS = 1_000_000_000

_known: dict[str, tuple[tuple[int, ...], str]] = {}
_lock = threading.Lock()


def identity(path: str) -> tuple[int, ...]:
    info = os.stat(path)
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def unchanged_sha256(path: str) -> str:
    """`stored_file_sha256(path)`, or the one this process (or its hashing process) found earlier for the file if
    its identity is unchanged."""
    if _pending:
        _absorb_done()
    before = identity(path)
    with _lock:
        found = _known.get(path)
    if found is not None and found[0] == before:
        return found[1]
    started = time.time_ns()
    sha = stored_file_sha256(path)
    if identity(path) == before and before[-1] < started - SETTLED_NS:  # settled, and not changed while read
        with _lock:
            _known[path] = (before, sha)
    return sha


#: Bytes of files hashed in one task of the hashing process: its results come back (and serve) task by task.
AHEAD_TASK_BYTES = 64 << 20

#: The pipe the hashes come back by (Linux: `F_SETPIPE_SZ`, at most `/proc/sys/fs/pipe-max-size`): with the
#: default 64 KiB, the hashes of ≈ 300 files filled it and the process waited until a check read them; 2,000 files'
#: hashes take ≈ 460 KB.
AHEAD_PIPE_BYTES = 1 << 20

_pending: list[HashedAhead] = []


class HashedAhead:
    """Files being hashed on a forked process (at a lower priority, killed if this process dies): each task's
    hashes join this process's as soon as they are sent, when a hash is next asked for; `join()` waits for all
    of them. The process ends when it has sent the last: a forked process holds what this one had open (the output
    folder's lock among it), so it never outlives the hashing (`stop()` ends it sooner)."""

    def __init__(self, paths: Sequence[str]) -> None:
        self._guard = threading.RLock()  # absorbed from any thread that checks a hash
        tasks = list(_tasks(paths))
        self._reader: Connection | None = None
        self._process: BaseProcess | None = None
        if tasks:
            self._reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)
            with contextlib.suppress(OSError, AttributeError):  # room for every hash: the process never waits
                fcntl.fcntl(writer.fileno(), fcntl.F_SETPIPE_SZ, AHEAD_PIPE_BYTES)
            self._process = forked_process(_hash_tasks, tasks, writer)
            writer.close()  # the process's end: its end of file tells this one that every task was sent

    def absorb(self, wait: bool = False) -> bool:
        """Take the hashes of the tasks sent (of every task, with `wait`); True once the process has ended."""
        with self._guard:
            while self._reader is not None and (wait or self._reader.poll()):
                try:
                    results = self._reader.recv()
                except (EOFError, OSError):  # every task sent (or the process died: the rest are hashed here)
                    self.stop()
                    break
                with _lock:
                    _known.update({path: (tuple(found), sha) for path, found, sha in results})
            return self._reader is None

    def join(self) -> None:
        self.absorb(wait=True)

    def stop(self) -> None:
        """End the process now (what it has not sent is hashed here when asked for)."""
        with self._guard:
            if self._process is not None:
                self._process.kill()
                self._process.join()
                self._process = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None


def hash_ahead(paths: Iterable[Path]) -> HashedAhead | threading.Thread:
    """Hash `paths` (in order; missing or unreadable ones skipped) for `unchanged_sha256`: on a forked process
    at a lower priority (no hand-over of this process's GIL per file: the run's thread runs as if alone), or
    where there is no fork on a daemon thread (not a `runtime.start_background` one, which forks wait for: it
    imports nothing and takes no lock but this module's, which a forked process never asks for)."""
    listed = [str(path) for path in paths]
    if "fork" in multiprocessing.get_all_start_methods():
        ahead = HashedAhead(listed)
        with _lock:
            _pending.append(ahead)
        return ahead

    def work() -> None:
        for path in listed:
            try:
                unchanged_sha256(path)
            except OSError:
                continue

    thread = threading.Thread(target=work, name="hash-ahead", daemon=True)
    thread.start()
    return thread


def _tasks(paths: Sequence[str]) -> Iterator[list[str]]:
    """The paths in order, cut into tasks of about `AHEAD_TASK_BYTES`."""
    task: list[str] = []
    size = 0
    for path in paths:
        with contextlib.suppress(OSError):
            size += os.stat(path).st_size
        task.append(path)
        if size >= AHEAD_TASK_BYTES:
            yield task
            task, size = [], 0
    if task:
        yield task


def _hash_tasks(tasks: list[list[str]], writer: Connection) -> None:
    """In the hashing process: each task's (path, identity, sha256) sent as soon as it is done."""
    lower_thread_priority()
    for task in tasks:
        writer.send(_hashed(task))
    writer.close()


def _hashed(paths: list[str]) -> list[tuple[str, tuple[int, ...], str]]:
    """(path, identity, sha256) of each settled file that did not change while read."""
    found = []
    for path in paths:
        try:
            before = identity(path)
            started = time.time_ns()
            sha = stored_file_sha256(path)
            if identity(path) == before and before[-1] < started - SETTLED_NS:
                found.append((path, before, sha))
        except OSError:
            continue
    return found


def _absorb_done() -> None:
    with _lock:
        pending = list(_pending)
    for ahead in pending:
        if ahead.absorb():
            with _lock, contextlib.suppress(ValueError):
                _pending.remove(ahead)


# A process forked from this one (a matchup worker) starts with every hash sent so far, and neither reads the
# hashing process's pipe nor ends it: they are this process's.
os.register_at_fork(before=_absorb_done, after_in_child=_pending.clear)


@contextlib.contextmanager
def hashing_stopped() -> Iterator[None]:
    """On leaving, end every hashing process still running (a run's, before it lets its output folder go)."""
    try:
        yield
    finally:
        _stop_all()


def forget_hashes() -> None:
    """Drop what this process remembers, and end any hashing still going on (the tests start each from nothing)."""
    _stop_all()
    with _lock:
        _known.clear()


def _stop_all() -> None:
    with _lock:
        pending, _pending[:] = list(_pending), []
    for ahead in pending:
        ahead.stop()
