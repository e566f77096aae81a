"""sha256 of files that are never changed once written (cache blobs, a release's files), remembered with their
identity, so that a file hashed ahead on a thread is not read again when it is checked (docs/releases.md#hashed-ahead).

A run checks every cached file it places against the sha256 recorded beside it (≈ 1.2 GB on the shared corpora
when one catalogue changed). Its first stages keep one core busy, so `hash_ahead` reads and hashes the files the
run is likely to place on another thread meanwhile (hashlib and file reads release the GIL); the check itself
is unchanged. A file's identity is its device, inode, size, modification and change times: a file rewritten or
replaced since it was hashed is hashed again (the change time cannot be set back by any user call). A hash is
remembered only for a file last changed well before it was read (`SETTLED_NS`), so that a change in the same
tick of the file system's clock as the read cannot go unseen.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from pipeline.ids import stored_file_sha256

#: How long before it is read a file must have last changed for its hash to be remembered (file system clocks
#: tick every few milliseconds).
SETTLED_NS = 1_000_000_000

_known: dict[str, tuple[tuple[int, ...], str]] = {}
_lock = threading.Lock()


def identity(path: str) -> tuple[int, ...]:
    info = os.stat(path)
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def unchanged_sha256(path: str) -> str:
    """`stored_file_sha256(path)`, or the one this process found earlier for the file if its identity is unchanged."""
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


def hash_ahead(paths: Iterable[Path]) -> threading.Thread:
    """Hash `paths` (in order; missing or unreadable ones skipped) on a daemon thread, for `unchanged_sha256`.
    Not a `runtime.start_background` thread, which forks wait for: it imports nothing and takes no lock but
    this module's, which a forked process never asks for, so the parse's forks need not wait."""
    listed = list(paths)

    def work() -> None:
        for path in listed:
            try:
                unchanged_sha256(str(path))
            except OSError:
                continue

    thread = threading.Thread(target=work, name="hash-ahead", daemon=True)
    thread.start()
    return thread


def forget_hashes() -> None:
    """Drop what this process remembers (the tests start each from nothing)."""
    with _lock:
        _known.clear()
