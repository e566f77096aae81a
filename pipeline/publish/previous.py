"""The release a new one is compared with: the previous release in the same output folder.

Rebuilding the same version (same inputs) compares with what that release was compared with,
so a rebuild gives the same files and manifest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline import config


@dataclass(frozen=True)
class PreviousRelease:
    folder: Path
    version: str

    def table(self, name: str) -> pl.DataFrame | None:
        """A published table of the previous release, or None when it did not publish one."""
        path = self.folder / f"{name}.parquet"
        return pl.read_parquet(path) if path.is_file() else None

    @property
    def row_counts(self) -> dict[str, int]:
        counts = _manifest(self.folder).get("row_counts", {})
        return {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else {}


def _manifest(folder: Path) -> dict[str, object]:
    try:
        loaded = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def previous_release(out_dir: Path, version: str) -> PreviousRelease | None:
    """`latest` of the output folder; if it is this very version, the release it was compared with."""
    latest = out_dir / config.LATEST_NAME
    if not (latest / "manifest.json").is_file():
        return None
    folder = latest.resolve()
    manifest = _manifest(folder)
    if manifest.get("version") != version:
        return PreviousRelease(folder, str(manifest.get("version", folder.name)))
    earlier = manifest.get("previous_release")
    if not isinstance(earlier, str) or not (out_dir / earlier / "manifest.json").is_file():
        return None
    folder = (out_dir / earlier).resolve()
    return PreviousRelease(folder, str(_manifest(folder).get("version", earlier)))
