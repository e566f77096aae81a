"""Cache entries as checked JSON files: a header (format, kind, key) and the payload's sha256.

A missing entry is a miss; an unreadable, foreign or corrupt one is a miss with a `CacheWarning`.
Nothing is unpickled, nothing read from the cache is used before its header and hash check out.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

FORMAT = "dataslate-cache"
SCHEMA = 1


class CacheWarning(UserWarning):
    """A cache entry was ignored (and will be recomputed)."""


def _digest(payload_text: str) -> str:
    return hashlib.sha256(payload_text.encode()).hexdigest()


def entry_path(folder: Path, kind: str, key: str) -> Path:
    return folder / kind / f"{key}.json"


def read_entry(folder: Path, kind: str, key: str) -> Any | None:
    """The payload stored for (kind, key), or None (missing, or ignored with a warning)."""
    path = entry_path(folder, kind, key)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return _ignored(path, f"unreadable ({exc})")
    try:
        head, _, body = text.partition("\n")
        header = json.loads(head)
    except ValueError:
        return _ignored(path, "no header")
    expected = {"format": FORMAT, "schema": SCHEMA, "kind": kind, "key": key}
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in expected.items()):
        return _ignored(path, "foreign header")
    if header.get("sha256") != _digest(body):
        return _ignored(path, "payload does not match its sha256")
    try:
        return json.loads(body)
    except ValueError:
        return _ignored(path, "payload is not JSON")


def _ignored(path: Path, why: str) -> Any:
    warnings.warn(f"cache entry ignored, recomputing: {path}: {why}", CacheWarning, stacklevel=3)
    return None


def warn_unfit(kind: str, key: str, exc: Exception) -> None:
    """An entry read back whole but not fitting its records (a model rejects it): ignored, recomputed."""
    warnings.warn(f"cache entry ignored, recomputing: {kind}/{key}: {exc!s:.200}", CacheWarning, stacklevel=3)


def write_entry(folder: Path, kind: str, key: str, payload: Any) -> Path:
    """Store `payload` (JSON-ready) for (kind, key), atomically (a reader sees the old entry or the new)."""
    path = entry_path(folder, kind, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    header = {"format": FORMAT, "schema": SCHEMA, "kind": kind, "key": key, "sha256": _digest(body)}
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(header, sort_keys=True) + "\n" + body)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
