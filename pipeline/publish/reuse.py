"""Whole-run reuse: the same inputs and code as the run that published `latest` give that release back.

The entry names the release folder and its manifest's sha256; it is trusted only while `latest`
still points at that folder and the manifest there still has that hash.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.cache.entries import read_entry, write_entry
from pipeline.ids import file_sha256
from pipeline.publish.outdir import ReleaseInfo
from pipeline.reports import RunReports

KIND = "runs"


@dataclass(frozen=True)
class StoredReport:
    """A stage's report as the reused release's manifest holds it."""

    data: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return self.data


@dataclass(frozen=True)
class ReusedRelease:
    """The release an unchanged run gives back, and its manifest."""

    version: str
    release: Path
    manifest: dict[str, Any]

    def reports(self) -> RunReports:
        """The stages' reports as the manifest of the run that built the release holds them."""
        stored = dict(self.manifest.get("reports", {}))
        store = {"damage_matrix_in_duckdb": stored.pop("damage_matrix_in_duckdb", None)}
        return RunReports(
            dedupe=StoredReport(stored.get("dedupe", {})),
            reconcile=StoredReport(stored.get("reconcile", {})),
            damage=StoredReport(stored.get("damage", {})),
            store=StoredReport(store),
            quality=StoredReport(self.manifest.get("quality", {})),
            parse=StoredReport(stored["parse"]) if "parse" in stored else None,
            loadouts=StoredReport(stored["loadouts"]) if "loadouts" in stored else None,
            unit_loadouts=StoredReport(stored["unit_loadouts"]) if "unit_loadouts" in stored else None,
            matchups=StoredReport(stored["matchups"]) if "matchups" in stored else None,
        )


def reusable_release(cache: Path, key: str, latest: ReleaseInfo | None, out: Path) -> ReusedRelease | None:
    """`latest` when the cache says it was built from exactly these inputs and this code."""
    entry = read_entry(cache, KIND, key)
    if not isinstance(entry, dict) or latest is None or entry.get("release") != latest.name:
        return None
    release = (out / latest.name).resolve()
    manifest_path = release / "manifest.json"
    if not manifest_path.is_file() or file_sha256(str(manifest_path)) != entry.get("manifest_sha256"):
        return None
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    return ReusedRelease(str(manifest["version"]), release, manifest)


def remember_release(cache: Path, key: str, release: Path) -> None:
    """Record that `release` (a published folder) is what these inputs and this code give."""
    manifest = release / "manifest.json"
    write_entry(cache, KIND, key, {"release": release.name, "manifest_sha256": file_sha256(str(manifest))})


@contextmanager
def removed_on_failure(cache: Path | None) -> Iterator[None]:
    """A cache folder this run created is removed again if the run fails: a failed run leaves nothing."""
    existed = cache is None or cache.exists()
    try:
        yield
    except BaseException:
        if not existed and cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
        raise
