"""Atomic, versioned release folders with a `latest` pointer.

A release is built in a staging folder inside the output folder, fsynced, then
renamed into place, and only then is `latest` switched (atomic symlink replace).
A crash or kill at any moment leaves the previous release and `latest` as they were.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from pipeline import config
from pipeline.errors import PublishError, ReleaseNotFoundError
from pipeline.ids import content_hash, file_sha256
from pipeline.runtime import sync_file_system

#: Top-level conveniences that always point into the latest release.
CONVENIENCE_LINKS = (config.DUCKDB_FILENAME, "manifest.json")


def version_id(input_hashes: list[str], code_version: str) -> str:
    """Version derived from the inputs and the pipeline version (no clock)."""
    return "v" + content_hash(code_version, *sorted(input_hashes), length=12)


#: Threads flushing a release at once: the file system commits their flushes together, so the ≈ 2,000 small
#: files of a release are flushed in a third of one thread's time (docs/releases.md#staging-and-the-atomic-switch).
FSYNC_THREADS = 16


def fsync_tree(root: Path) -> None:
    """Flush every file and folder under root to disk before the rename: one `syncfs` of its file system where
    there is one (an fsync per path cost 0.2-0.3 s for a release's 2,000 files, most of them already on disk),
    else files first, then their folders."""
    if sync_file_system(root):
        return
    walked = list(os.walk(root))
    files = [os.path.join(folder, name) for folder, _, names in walked for name in names]
    with ThreadPoolExecutor(max_workers=FSYNC_THREADS) as pool:
        list(pool.map(_fsync_path, files))
        list(pool.map(_fsync_path, [folder for folder, _, _ in walked]))


def _fsync_dir(folder: Path) -> None:
    _fsync_path(str(folder))


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def staging_release(out_dir: Path, version: str, before_place: Callable[[], None] | None = None) -> Iterator[Path]:
    """Yield an empty staging folder; on success rename it into place and switch `latest`.

    `before_place` runs first and may refuse (raise): the run's check that `latest` did not move.
    On any exception the staging folder is removed and nothing else changes.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = out_dir / f".staging-{version}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        yield staging
        if before_place is not None:
            before_place()
        fsync_tree(staging)
        final = _place(staging, out_dir, version)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    switch_latest(out_dir, final.name)


def _place(staging: Path, out_dir: Path, version: str) -> Path:
    """Move staging to its release folder; an existing folder is never renamed or removed.

    A folder of the same version with the same manifest is the same release: it is
    kept and staging dropped. One with another manifest (the code changed, not the
    inputs) stays too, and the new release is `<version>-<manifest hash>`.
    """
    manifest = staging / "manifest.json"
    digest = file_sha256(str(manifest))[:8] if manifest.is_file() else "nomanifest"
    for final in (out_dir / version, out_dir / f"{version}-{digest}"):
        if not final.exists():
            os.rename(staging, final)
            _fsync_dir(out_dir)
            return final
        if (final / "manifest.json").is_file() and file_sha256(str(final / "manifest.json"))[:8] == digest:
            shutil.rmtree(staging, ignore_errors=True)
            return final
    raise PublishError("release folder exists with other contents", path=out_dir / f"{version}-{digest}")


def _atomic_symlink(target: str, link: Path) -> None:
    tmp = link.with_name(f".{link.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    os.replace(tmp, link)


def switch_latest(out_dir: Path, version: str) -> None:
    """Point `latest` (and the top-level convenience links) at `version`, atomically."""
    latest = out_dir / config.LATEST_NAME
    if latest.exists() and not latest.is_symlink():
        raise PublishError("refusing to replace a real folder named latest", path=latest)
    _atomic_symlink(version, latest)
    for name in CONVENIENCE_LINKS:
        link = out_dir / name
        if not link.exists() or link.is_symlink():
            _atomic_symlink(f"{config.LATEST_NAME}/{name}", link)
    _fsync_dir(out_dir)


def resolve_release(path: Path) -> Path:
    """A release folder from a path: a release itself, or an output folder's `latest`."""
    latest = path / config.LATEST_NAME
    if (latest / config.DUCKDB_FILENAME).is_file():
        return latest.resolve()
    if (path / config.DUCKDB_FILENAME).is_file() and (path / "manifest.json").is_file():
        return path.resolve()
    raise ReleaseNotFoundError("no release here (expected dataslate.duckdb and manifest.json)", path=path)
