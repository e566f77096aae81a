"""Published files cached by the content they were computed from: a partition whose inputs did not change
is placed into the release from the cache instead of being computed and written again
(docs/releases.md#the-cache).

A part's key is the caller's digest of everything the file's bytes depend on (with the code fingerprint);
the entry records the file's sha256 and size, and a file is placed only when its bytes still hash to them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.cache.entries import CacheWarning, entry_path, read_entry, write_entry
from pipeline.cache.hashed import unchanged_sha256
from pipeline.ids import stored_file_sha256

#: Cache sub-folder of every part kind (`parts/<kind>/<key>.json` beside `<key>.bin`).
PARTS_DIR = "parts"


@dataclass(frozen=True)
class PlacedFile:
    """A part file in the release: its sha256 and size, and what its producer recorded beside it."""

    sha256: str
    bytes: int
    meta: dict[str, Any]


@dataclass
class PartCache:
    """Part files of one kind; with no folder every lookup misses and nothing is kept. `used` collects the
    keys this run placed, read or kept, so that `prune` can drop the others once the run has published;
    `kept` the keys this process kept."""

    folder: Path | None
    kind: str
    used: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)

    @property
    def _kind(self) -> str:
        return f"{PARTS_DIR}/{self.kind}"

    def _blob(self, key: str) -> Path:
        assert self.folder is not None
        return entry_path(self.folder, self._kind, key).with_suffix(".bin")

    def place(self, key: str, dest: Path) -> PlacedFile | None:
        """The cached file of `key` at `dest` (linked, else copied), or None: no entry, or one whose file
        is gone or no longer has its recorded bytes (ignored with a warning)."""
        found = self.get(key)
        if found is None:
            return None
        blob, placed = found
        _link_or_copy(blob, dest)
        return placed

    def get(self, key: str, use: bool = True) -> tuple[Path, PlacedFile] | None:
        """The cached file of `key` where it lies in the cache (to be read, never changed), or None as for
        `place`. Either way checked against its entry first, and counted as used (kept by `prune`) if `use`."""
        if self.folder is None:
            return None
        entry = read_entry(self.folder, self._kind, key)
        if not isinstance(entry, dict):
            return None
        blob = self._blob(key)
        try:
            size = blob.stat().st_size
            intact = size == entry.get("bytes") and unchanged_sha256(str(blob)) == entry.get("sha256")
        except OSError:
            intact = False
        if not intact:
            warnings.warn(f"cache part ignored, recomputing: {blob}: missing or changed", CacheWarning, stacklevel=3)
            return None
        if use:
            self.used.add(key)
        return blob, PlacedFile(str(entry["sha256"]), int(entry["bytes"]), dict(entry.get("meta") or {}))

    def meta(self, key: str) -> dict[str, Any] | None:
        """What `key`'s producer recorded, if the cache has an entry for it (its file is checked by `get`)."""
        entry = read_entry(self.folder, self._kind, key) if self.folder is not None else None
        return dict(entry.get("meta") or {}) if isinstance(entry, dict) else None

    def entry_keys(self) -> frozenset[str]:
        """The keys this kind has an entry for, from one listing of its folder (an entry is read, and its file
        checked, only when used: `get`)."""
        folder = self.folder / self._kind if self.folder is not None else None
        if folder is None or not folder.is_dir():
            return frozenset()
        return frozenset(name[: -len(".json")] for name in os.listdir(folder) if name.endswith(".json"))

    def holds_any(self) -> bool:
        """Whether the cache has any entry of this kind (none: a cold run, or no cache)."""
        folder = self.folder / self._kind if self.folder is not None else None
        return folder is not None and folder.is_dir() and any(folder.glob("*.json"))

    def claim(self, keys: Iterable[str]) -> None:
        """Count as used parts kept by other processes of this run (forked workers keep into the same folder,
        but their `used` stays in their process)."""
        self.used.update(keys)

    def keep(self, key: str, path: Path, meta: dict[str, Any] | None = None, sha256: str | None = None) -> PlacedFile:
        """Record the file just written at `path` as `key`'s (a no-op but for the hash without a folder);
        `sha256`: its hash, when the writer hashed what it wrote."""
        sha = sha256 if sha256 is not None else stored_file_sha256(str(path))
        placed = PlacedFile(sha, path.stat().st_size, dict(meta or {}))
        if self.folder is None:
            return placed
        self._store(key, placed, lambda tmp: _link_or_copy(path, tmp))
        return placed

    def keep_bytes(self, key: str, data: bytes, meta: dict[str, Any] | None = None) -> None:
        """Record `data` as `key`'s file (a part the release does not hold: only the cache)."""
        if self.folder is not None:
            placed = PlacedFile(hashlib.sha256(data).hexdigest(), len(data), dict(meta or {}))
            self._store(key, placed, lambda tmp: tmp.write_bytes(data))

    def keep_written(self, key: str, write: Callable[[Path], object], meta: dict[str, Any] | None = None) -> None:
        """Record what `write(path)` writes as `key`'s file, written where the cache keeps it (a part the release
        does not hold, too large to build in memory first)."""
        if self.folder is not None:
            self._store(key, None, write, meta)

    def set_meta(self, key: str, meta: dict[str, Any]) -> None:
        """Replace what `key`'s producer recorded beside its file (the file is unchanged)."""
        entry = read_entry(self.folder, self._kind, key) if self.folder is not None else None
        if self.folder is not None and isinstance(entry, dict):
            write_entry(self.folder, self._kind, key, {**entry, "meta": dict(meta)})

    def _store(
        self, key: str, placed: PlacedFile | None, fill: Callable[[Path], object], meta: dict[str, Any] | None = None
    ) -> None:
        """The blob of `key` filled by `fill` (into a temporary file, then renamed), then its entry (`placed`:
        its hash and size, else read from the file filled, with `meta`)."""
        assert self.folder is not None
        blob = self._blob(key)
        blob.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=blob.parent, prefix=".tmp-")
        os.close(handle)
        try:
            fill(Path(tmp))
            if placed is None:
                placed = PlacedFile(stored_file_sha256(tmp), Path(tmp).stat().st_size, dict(meta or {}))
            os.replace(tmp, blob)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        write_entry(self.folder, self._kind, key, {"sha256": placed.sha256, "bytes": placed.bytes, "meta": placed.meta})
        self.used.add(key)
        self.kept.add(key)

    def prune(self) -> int:
        """Remove every part of this kind that this run did not use; returns how many were removed."""
        if self.folder is None:
            return 0
        folder = self.folder / self._kind
        removed = 0
        for path in folder.glob("*") if folder.is_dir() else ():
            if path.stem not in self.used and path.suffix in {".json", ".bin"}:
                path.unlink(missing_ok=True)
                removed += path.suffix == ".json"
        return removed


def part_files(folder: Path | None, kinds: Iterable[str]) -> list[Path]:
    """The files kept for `kinds`, kind by kind (for `hashed.hash_ahead`)."""
    if folder is None:
        return []
    return [path for kind in kinds for path in sorted((folder / PARTS_DIR / kind).glob("*.bin"))]


def _link_or_copy(source: Path, dest: Path) -> None:
    """`dest` becomes `source`'s bytes: a hard link (no copy; the cache checks the bytes before each use),
    or a copy where linking is not possible (another file system)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.unlink(missing_ok=True)
    try:
        os.link(source, dest)
    except OSError:
        shutil.copyfile(source, dest)
