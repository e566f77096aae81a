"""Local side of the scraper: atomic writes, the validator sidecar, the manifest.

A download goes to a temporary file next to its target, is flushed and fsynced,
and only then renamed over the target, so a crash or a truncated body never
leaves a half-written file where a good one was. The sidecar remembers each
file's ETag / Last-Modified for conditional requests; the manifest records what
the folder holds (sha256 per file), rewritten atomically after every run.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pipeline.ids import file_sha256

STATE_FILE = ".fetch-state.json"
MANIFEST_FILE = "manifest.json"


@contextlib.contextmanager
def atomic_writer(target: Path) -> Iterator[IO[bytes]]:
    """A binary handle whose content replaces `target` only if the block succeeds."""
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed and renamed below)
        dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False
    )
    temp = Path(handle.name)
    try:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        os.replace(temp, target)
        fsync_dir(target.parent)
    finally:
        handle.close()
        temp.unlink(missing_ok=True)


def fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json(target: Path, data: Any) -> None:
    with atomic_writer(target) as handle:
        handle.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n")


def load_state(folder: Path) -> dict[str, dict[str, str]]:
    """Validators per file name from the sidecar; an unreadable sidecar means none."""
    try:
        data = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: {a: str(b) for a, b in v.items()} for k, v in data.items() if isinstance(v, dict)}


def save_state(folder: Path, state: dict[str, dict[str, str]]) -> None:
    write_json(folder / STATE_FILE, state)


def local_sha256(path: Path) -> str | None:
    return file_sha256(str(path)) if path.is_file() else None
