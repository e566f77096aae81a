"""The catalogues of a BSData repository archive (.tar.gz), extracted without trusting it.

The archive is read as a stream: our own gzip inflater (capped: `max_inflated`
bytes of tar stream, skipped members included) feeds `tarfile` in stream mode.
Any absolute path, `..` component, link, device or FIFO refuses the whole archive
(an archive that holds one is broken or hostile); directories and regular files
that are not `.cat`/`.gst` are skipped and counted. Catalogues are written flat
under their base name with our own permissions; two with the same name, more than
`max_members` members or more than `max_extracted` catalogue bytes refuse it too.
"""

from __future__ import annotations

import os
import tarfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any, cast

from pipeline.fetch.decode import CHUNK, DecodeError, GzipInflater, inflate_all

SUFFIXES = (".cat", ".gst")
#: GNU long names and pax headers are read into memory whole by tarfile: bound them first.
MAX_EXTENDED_HEADER = 1 << 20
EXTENDED_TYPES = frozenset({tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE})


class ArchiveError(Exception):
    """An archive refused as a whole (the message says why)."""


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int = 10_000
    max_inflated: int = 1 << 30
    max_extracted: int = 512 << 20


@dataclass
class Extracted:
    """What an archive gave: catalogue name -> size, and the members skipped."""

    files: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    members: int = 0

    @property
    def size(self) -> int:
        return sum(self.files.values())


class _InflatedStream:
    """A read-only file over a gzip file, inflated lazily one bounded piece at a time, `cap` bytes at most."""

    def __init__(self, source: IO[bytes], cap: int) -> None:
        compressed = iter(partial(source.read, CHUNK), b"")
        self._pieces = inflate_all(compressed, GzipInflater())
        self._cap = cap
        self._buffer = bytearray()
        self._done = False
        self.inflated = 0

    def read(self, size: int = -1) -> bytes:
        while not self._done and (size < 0 or len(self._buffer) < size):
            self._fill()
        size = len(self._buffer) if size < 0 else size
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    def _fill(self) -> None:
        piece = next(self._pieces, None)
        if piece is None:
            self._done = True
            return
        self.inflated += len(piece)
        if self.inflated > self._cap:
            raise ArchiveError(f"the archive inflates to more than {self._cap} bytes")
        self._buffer += piece


class _BoundedTarInfo(tarfile.TarInfo):
    """Refuses a GNU long name or pax header over MAX_EXTENDED_HEADER before tarfile reads it whole.

    `_proc_member` is the hook tarfile's own source names for subclasses.
    """

    def _proc_member(self, tarfile: Any) -> Any:
        if self.type in EXTENDED_TYPES and self.size > MAX_EXTENDED_HEADER:
            raise ArchiveError(f"an extended tar header of {self.size} bytes")
        return super()._proc_member(tarfile)  # type: ignore[misc]


def _unsafe_path(name: str) -> bool:
    path = name.replace("\\", "/")
    return path.startswith("/") or "\x00" in path or ".." in PurePosixPath(path).parts or path[1:3] == ":/"


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "FIFO"
    return f"type {member.type!r}"


def _catalogue_name(member: tarfile.TarInfo) -> str | None:
    name = PurePosixPath(member.name.replace("\\", "/")).name
    if name.startswith(".") or not name.lower().endswith(SUFFIXES):
        return None
    return name


def _copy(source: IO[bytes], target: Path) -> int:
    size = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        while chunk := source.read(CHUNK):
            handle.write(chunk)
            size += len(chunk)
    return size


class _Extraction:
    def __init__(self, tar: tarfile.TarFile, into: Path, limits: ArchiveLimits) -> None:
        self.tar, self.into, self.limits = tar, into, limits
        self.result = Extracted()

    def run(self) -> Extracted:
        for member in self.tar:
            self.result.members += 1
            if self.result.members > self.limits.max_members:
                raise ArchiveError(f"more than {self.limits.max_members} members")
            self._member(member)
        return self.result

    def _member(self, member: tarfile.TarInfo) -> None:
        if _unsafe_path(member.name):
            raise ArchiveError(f"unsafe member path refused: {member.name!r}")
        if member.isdir():
            return
        if not member.isreg():
            raise ArchiveError(f"{_kind(member)} member refused: {member.name!r}")
        name = _catalogue_name(member)
        if name is None:
            self.result.skipped.append(member.name)
            return
        self._extract(member, name)

    def _extract(self, member: tarfile.TarInfo, name: str) -> None:
        if name in self.result.files:
            raise ArchiveError(f"two catalogues named {name!r}")
        if self.result.size + member.size > self.limits.max_extracted:
            raise ArchiveError(f"the catalogues exceed {self.limits.max_extracted} bytes")
        source = self.tar.extractfile(member)
        if source is None:  # pragma: no cover - isreg() members always have data
            raise ArchiveError(f"no data for {member.name!r}")
        self.result.files[name] = _copy(source, self.into / name)


def extract_catalogues(archive: Path, into: Path, limits: ArchiveLimits) -> Extracted:
    """Write the archive's `.cat`/`.gst` files into the (empty) folder `into`; ArchiveError if refused."""
    with archive.open("rb") as raw:
        stream = _InflatedStream(raw, limits.max_inflated)
        try:
            with tarfile.open(fileobj=cast(IO[bytes], stream), mode="r|", tarinfo=_BoundedTarInfo) as tar:
                return _Extraction(tar, into, limits).run()
        except DecodeError as error:
            raise ArchiveError(f"not a valid .tar.gz: {error}") from error
        except (tarfile.TarError, EOFError) as error:
            raise ArchiveError(f"not a valid tar archive: {error}") from error
