"""`feed/index.json`: every file of the feed with its size, sha256, rows and schema, for apps that sync."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.ids import stored_file_sha256
from pipeline.publish.faction_schema import NAME as FACTION_SCHEMA

INDEX = "index.json"


def _schema_of(relative: Path) -> str:
    name = FACTION_SCHEMA if relative.parts[0] == "factions" else relative.name.removesuffix(".ndjson")
    return f"schemas/{name}.schema.json"


def write_feed_index(
    release: Path, version: str, row_counts: dict[str, int], known: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The index document (written to `feed/index.json`): files sorted by path, paths relative to `feed/`;
    `known`: sha256 already taken, by path relative to the release."""
    feed, known = release / "feed", known or {}
    files = []
    for path in sorted(p for p in feed.rglob("*") if p.is_file() and p.name != INDEX):
        relative = path.relative_to(feed)
        entry: dict[str, Any] = {
            "path": relative.as_posix(),
            "bytes": path.stat().st_size,
            "sha256": known.get(str(path.relative_to(release))) or stored_file_sha256(str(path)),
            "schema": _schema_of(relative),
        }
        if path.suffix == ".ndjson":
            entry["rows"] = row_counts.get(path.stem)
        files.append(entry)
    index = {"version": version, "files": files}
    (feed / INDEX).write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return index
