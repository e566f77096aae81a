"""The output folder a run publishes into: checked before any work, locked for one publisher at a
time, cleared of what killed runs left, and its `latest` release read for the gates and the
publication sequence (docs/releases.md#the-output-folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import config
from pipeline.errors import PublishError

#: The lock file: held (flock) for a whole run by the one process publishing into the folder.
LOCK_NAME = ".dataslate.lock"
#: Where the quality report of the last rejected run is kept (one, replaced by the next).
REJECTED_DIRNAME = ".rejected"
#: What killed runs leave: staging folders and temporary links, named after their process id.
_LEFTOVER = re.compile(r"^\.(?:staging-.+|.+\.tmp)-(\d+)$")


def check_output(out: Path) -> Path:
    """The output folder as an absolute path, created if missing; PublishError (before any work is
    done) if it is the filesystem root, a file, or cannot be created or written."""
    path = Path(os.path.abspath(out))
    if path == Path(path.anchor):
        raise PublishError("refusing to publish into the filesystem root", path=path)
    if path.exists() and not path.is_dir():
        raise PublishError("the output folder is a file", path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path, prefix=".dataslate-write-test-"):
            pass
    except OSError as exc:
        raise PublishError(f"the output folder cannot be created or written ({exc.strerror})", path=path) from exc
    return path


def _holder(handle: Any) -> str:
    handle.seek(0)
    pid = handle.read(32).strip()
    return f" (pid {pid})" if pid.isdigit() else ""


@contextlib.contextmanager
def publish_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's lock file for the block; a second publisher fails at once, naming the first."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:  # a link or a folder in its place, or no right to it
        raise PublishError(f"cannot open the lock file {LOCK_NAME} ({exc.strerror})", path=folder) from exc
    with os.fdopen(fd, "r+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise PublishError(
                f"another dataslate run{_holder(handle)} is publishing into this folder; run again when it is done",
                path=folder,
            ) from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(folder: Path) -> list[str]:
    """Remove the staging folders and temporary links of runs whose process is gone; their names."""
    removed = []
    for entry in sorted(folder.iterdir()):
        match = _LEFTOVER.match(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry.name)
    return removed


@dataclass(frozen=True)
class ReleaseInfo:
    """What the gates and the sequence need of a published release (from its manifest)."""

    name: str
    version: str
    sequence: int
    previous: str | None
    row_counts: dict[str, int]
    curated: dict[str, int]


def read_release(folder: Path) -> ReleaseInfo | None:
    """A release folder's facts, or None if it has no readable manifest."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        publication = manifest.get("publication") or {}
        return ReleaseInfo(
            name=folder.resolve().name,
            version=str(manifest["version"]),
            sequence=int(publication.get("sequence") or 0),
            previous=publication.get("previous"),
            row_counts={str(k): int(v) for k, v in manifest.get("row_counts", {}).items()},
            curated={str(s["source_id"]): int(s["rows_curated"]) for s in manifest.get("inputs", [])},
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class Publication:
    """A release's place in its output folder: its sequence number (1 for the first) and the release
    it is compared with (None for the first). Both go into the manifest."""

    sequence: int
    previous: ReleaseInfo | None

    def as_dict(self) -> dict[str, Any]:
        return {"sequence": self.sequence, "previous": self.previous.name if self.previous else None}


@dataclass(frozen=True)
class OutputFolder:
    """A checked, locked output folder and its `latest` release when the run started."""

    path: Path
    latest: ReleaseInfo | None

    def publication(self, version: str) -> Publication:
        """The next publication; rebuilding `latest`'s own version keeps its sequence and its
        previous release, so the same inputs and code give the same manifest (the folder is reused)."""
        latest = self.latest
        if latest is None:
            return Publication(1, None)
        if latest.version == version:
            before = read_release(self.path / latest.previous) if latest.previous else None
            return Publication(latest.sequence, before)
        return Publication(latest.sequence + 1, latest)

    def check_latest_unmoved(self) -> None:
        """Refuse to switch `latest` if it moved since the run started (a publisher that bypassed the
        lock): an older run never replaces a newer release."""
        now = read_release(self.path / config.LATEST_NAME)
        before = self.latest.name if self.latest else None
        if (now.name if now else None) != before:
            raise PublishError(
                f"latest moved during this run ({before} -> {now.name if now else None}): not replacing it",
                path=self.path,
            )


@contextlib.contextmanager
def open_output(out: Path) -> Iterator[OutputFolder]:
    """Check and lock the output folder, remove what killed runs left, read `latest`. A folder this
    run created is removed again if the run fails with nothing but the lock file in it."""
    created = not os.path.lexists(out)
    path = check_output(out)
    try:
        with publish_lock(path):
            remove_leftovers(path)
            yield OutputFolder(path, read_release(path / config.LATEST_NAME))
    except BaseException:
        if created and [p.name for p in path.iterdir()] == [LOCK_NAME]:
            (path / LOCK_NAME).unlink(missing_ok=True)
            path.rmdir()
        raise
