"""What a cache key is made of: the code that runs and the bytes of the inputs."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import __version__, config
from pipeline.ids import file_sha256

if TYPE_CHECKING:
    import polars as pl

#: The code and data files whose change invalidates every entry (the package, the contract, the suites).
CODE_ROOTS = ("pipeline", "schemas", "expectations")

#: Libraries whose version changes what is computed or the bytes written (an upgrade invalidates every entry).
LIBRARIES = ("duckdb", "numpy", "polars", "pyarrow", "pydantic", "great-expectations", "lxml", "beautifulsoup4")


@functools.cache
def code_fingerprint() -> str:
    """sha256 over the pipeline version and every source, schema and suite file (path and bytes)."""
    digest = hashlib.sha256(__version__.encode())
    for name in LIBRARIES:
        digest.update(f"{name}=={_installed(name)}\0".encode())
    for root in CODE_ROOTS:
        for path in sorted((config.REPO_ROOT / root).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".json", ".sql"}:
                digest.update(path.relative_to(config.REPO_ROOT).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def frame_digest(frame: pl.DataFrame) -> str:
    """sha256 of a frame's columns and rows in order, as NDJSON text (the logical values, never the
    memory layout, which differs between equal frames)."""
    digest = hashlib.sha256(json.dumps(list(frame.schema.items()), default=str).encode() + b"\n")
    digest.update(frame.write_ndjson().encode())
    return digest.hexdigest()


def entry_fingerprint(path: Path) -> str:
    """One directory entry, never following a link or opening anything but a regular file: a link is its
    target text, a FIFO or device its type, a file above the input cap its size (the parser refuses it
    unread), any other file its sha256."""
    try:
        info = os.lstat(path)
    except OSError as exc:  # missing or unreadable: the parser says so, in its stage
        return f"absent:{exc.errno}"
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if not stat.S_ISREG(info.st_mode):
        return f"special:{stat.S_IFMT(info.st_mode)}"
    if info.st_size > config.MAX_INPUT_FILE_BYTES:
        return f"oversize:{info.st_size}"
    return "sha256:" + file_sha256(str(path))


def tree_fingerprint(path: Path) -> list[tuple[str, str]]:
    """(relative path, fingerprint) of `path` (a file) or of every entry under it (a folder, links not followed)."""
    if not path.is_dir() or path.is_symlink():
        return [(path.name, entry_fingerprint(path))]
    entries = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            full = Path(folder, name)
            entries.append((full.relative_to(path).as_posix(), entry_fingerprint(full)))
    return sorted(entries)


def key_of(*parts: object) -> str:
    """sha256 of the parts' text, one per line."""
    return hashlib.sha256("\n".join(str(p) for p in parts).encode()).hexdigest()


def inputs_key(paths: Iterable[Path], options: tuple[object, ...] = ()) -> str:
    """The key of one run's inputs: every input path (resolved) with its tree, the code, and the run options
    that change what is published."""
    parts: list[object] = [code_fingerprint(), *options]
    for path in paths:
        parts += [os.path.abspath(path), *tree_fingerprint(path)]
    return key_of(*parts)
