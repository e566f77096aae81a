"""Large files written around the page cache (`O_DIRECT`), hashed as they are written.

Why: a changed run writes `feed/damage_vs_reference.ndjson` (350 MB) again, and on the VMs this runs on a
buffered write into new page-cache pages cost 1.0-3.3 s of system time (the guest's free pages are handed back to
the host, so each new page faults there first); written around the cache the same bytes took 0.4-0.7 s, and the
release's fsync has nothing of them left to flush (docs/scaling.md#incremental-work). Where the file system refuses
`O_DIRECT` (or a direct write) the bytes are written as usual: only the time changes, never the file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import mmap
import os
from collections.abc import Iterable
from pathlib import Path

#: Alignment of every write's buffer, length and file offset (a multiple of any disk's logical block).
BLOCK = 4096
#: Bytes gathered before each write (a multiple of `BLOCK`).
BUFFER_BYTES = 16 << 20


def write_direct(path: Path, chunks: Iterable[bytes]) -> str:
    """Write the chunks' bytes, in order, to `path` (created or emptied); their sha256."""
    fd = _open_direct(path)
    if fd is None:
        return _write_buffered(path, chunks)
    digest = hashlib.sha256()
    buffer = mmap.mmap(-1, BUFFER_BYTES)  # page-aligned, as `O_DIRECT` needs
    view = memoryview(buffer)
    try:
        filled = total = 0
        for chunk in chunks:
            digest.update(chunk)
            total += len(chunk)
            filled = _gather(fd, view, filled, memoryview(chunk))
        if filled:
            padded = -(-filled // BLOCK) * BLOCK
            view[filled:padded] = bytes(padded - filled)
            _write_all(fd, view[:padded])
        os.ftruncate(fd, total)  # the padding of the last block goes
    finally:
        os.close(fd)
        with contextlib.suppress(BufferError):  # a slice still held by an error's traceback: freed with it
            view.release()
            buffer.close()
    return digest.hexdigest()


def _gather(fd: int, buffer: memoryview, filled: int, data: memoryview) -> int:
    """`data` copied into `buffer` after its first `filled` bytes, the buffer written whenever it is full; how
    much of it is filled after."""
    while data:
        take = min(len(data), len(buffer) - filled)
        buffer[filled : filled + take] = data[:take]
        filled, data = filled + take, data[take:]
        if filled == len(buffer):
            _write_all(fd, buffer)
            filled = 0
    return filled


def _write_all(fd: int, data: memoryview) -> None:
    """Every byte of `data` written; if the device refuses the direct write (it wants larger blocks than
    `BLOCK`), the descriptor writes through the page cache from then on."""
    while data:
        try:
            written = os.write(fd, data)
        except OSError as exc:
            if exc.errno != errno.EINVAL or not _stop_direct(fd):
                raise
            continue
        data = data[written:]


def _stop_direct(fd: int) -> bool:
    """Clear `O_DIRECT` on `fd`; False if it was not set (the error was another's)."""
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    direct = getattr(os, "O_DIRECT", 0)
    if not flags & direct:
        return False
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~direct)
    return True


def _open_direct(path: Path) -> int | None:
    """A descriptor writing around the page cache, or None where there is no `O_DIRECT` or the file system
    refuses it."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return None
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | flag, 0o666)
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
        return None


def _write_buffered(path: Path, chunks: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    with path.open("wb") as out:
        for chunk in chunks:
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()
