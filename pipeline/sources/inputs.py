"""Input files opened safely: regular files inside their input folder, under a size cap.

A parser reads an input file only through `read_input` / `open_input`, so a symlink out of the input
folder, a device, a FIFO, a socket or an oversized file is refused before a byte of it is read, and
the refusal is one quarantine row (`refusal`) instead of a hang, a crash or a leak
(docs/sources.md#input-limits).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pipeline import config
from pipeline.errors import PipelineError

#: Prefix of every refusal's quarantine reason.
REFUSED = "input refused"
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class InputRefused(PipelineError):
    """An input file that is not read at all; `why` names the rule it breaks (never its content or path)."""

    def __init__(self, why: str, path: Path) -> None:
        super().__init__(f"{REFUSED}: {why}", path=path.name)
        self.why = why

    @property
    def reason(self) -> str:
        """The quarantine reason: `input refused: <why>`."""
        return self.message


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _real_path(path: Path) -> Path:
    """The file a path names, if it is inside the folder that lists it (the path's own parent)."""
    try:
        real = path.resolve(strict=True)
        folder = path.parent.resolve(strict=True)
    except RuntimeError as exc:  # Python 3.11 reports a symlink loop this way
        raise InputRefused("symlink loop", path) from exc
    except OSError as exc:
        why = {errno.ELOOP: "symlink loop", errno.ENOENT: "dangling symlink or missing file"}
        raise InputRefused(why.get(exc.errno or 0, f"unreadable ({exc.strerror})"), path) from exc
    if path.is_symlink() and not real.is_relative_to(folder):
        raise InputRefused("symlink leads outside the input folder", path)
    return real


def _open_fd(path: Path) -> tuple[int, os.stat_result]:
    """An fd on the regular file `path` names; checked after opening (fstat), so no swap gets past."""
    real = _real_path(path)
    try:
        before = os.stat(real)
    except OSError as exc:
        raise InputRefused(f"unreadable ({exc.strerror})", path) from exc
    if not stat.S_ISREG(before.st_mode):
        raise InputRefused(f"{_kind(before.st_mode)}, not a regular file", path)
    try:
        fd = os.open(real, _OPEN_FLAGS)  # O_NONBLOCK: a FIFO swapped in now cannot block the open
    except OSError as exc:
        raise InputRefused(f"unreadable ({exc.strerror})", path) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputRefused(f"{_kind(info.st_mode)}, not a regular file", path)
    return fd, info


def _check_size(size: int, path: Path, limit: int) -> None:
    if size > limit:
        raise InputRefused(f"file too large ({size:,} bytes, the limit is {limit:,})", path)


def open_input(path: Path, limit: int | None = None) -> BinaryIO:
    """A regular input file opened for reading (binary); InputRefused when it may not be read."""
    limit = config.MAX_INPUT_FILE_BYTES if limit is None else limit
    fd, info = _open_fd(path)
    try:
        _check_size(info.st_size, path, limit)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


@dataclass(frozen=True)
class InputBytes:
    """An input file's bytes and their sha256 (hashed as read: never a second open by path)."""

    data: bytes
    sha256: str


def read_input(path: Path, limit: int | None = None) -> InputBytes:
    """The bytes of a regular input file, at most `limit` (default MAX_INPUT_FILE_BYTES); a file
    that grows past the limit while read is refused too."""
    limit = config.MAX_INPUT_FILE_BYTES if limit is None else limit
    with open_input(path, limit) as handle:
        data = handle.read(limit + 1)
    _check_size(len(data), path, limit)
    return InputBytes(data, hashlib.sha256(data).hexdigest())


def check_rows(rows: int, path: Path, limit: int | None = None) -> None:
    """Refuse a file with more than `limit` rows (MAX_INPUT_ROWS): its rows are never parsed."""
    limit = config.MAX_INPUT_ROWS if limit is None else limit
    if rows > limit:
        raise InputRefused(f"too many rows ({rows:,}, the limit is {limit:,})", path)


def field_too_long(what: str, length: int, limit: int | None = None) -> str | None:
    """The quarantine reason of a value longer than `limit` characters (MAX_INPUT_FIELD_CHARS), else None."""
    limit = config.MAX_INPUT_FIELD_CHARS if limit is None else limit
    return f"{what} too long ({length:,} characters, the limit is {limit:,})" if length > limit else None
