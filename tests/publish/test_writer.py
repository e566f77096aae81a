"""Publishing on its own: it writes the reports it is given, returns what it wrote, and changes no input."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import config
from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.ids import file_sha256
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.publish.outdir import Publication
from pipeline.publish.writer import write_release
from pipeline.quality.report import QualitySummary
from pipeline.reconcile.stage import reconcile_stage
from pipeline.reports import RunReports
from pipeline.sources.registry import read_inputs
from pipeline.store import build_frames, store_stage


@dataclass(frozen=True)
class _ParseReport:
    """What a per-source parse report looks like to the manifest (the parsers' own is not needed here)."""

    files: int

    def as_dict(self) -> dict[str, Any]:
        return {"files": self.files}


def test_publish_writes_the_reports_it_is_given_and_changes_nothing_it_was_given(tmp_path: Path) -> None:
    deduped = dedupe_stage(read_inputs([config.RAW_PAGES_DIR]).dataset)
    reconciled = reconcile_stage(deduped.dataset)
    frames = build_frames(reference_stage(reconciled.dataset).dataset)
    damage = damage_stage(frames)
    frames = {**frames, "damage_vs_reference": damage_vs_reference(damage, frames)}
    stored = store_stage(frames, damage, tmp_path)
    quality = QualitySummary(passed=True, expectations=0, critical_failures=0, warnings=0, failed=())
    reports = RunReports(deduped.report, reconciled.report, damage.report, stored, quality, parse=_ParseReport(3))
    given_reports, given_frames = copy.deepcopy(reports.as_dict()), {k: f.clone() for k, f in frames.items()}

    published = write_release(tmp_path, "vtest", frames, damage, reports, Publication(1, None))

    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest == json.loads(json.dumps(published.manifest, default=str))
    assert sorted(manifest["reports"]) == ["damage", "damage_matrix_in_duckdb", "dedupe", "parse", "reconcile"]
    assert manifest["reports"]["parse"] == {"files": 3}
    assert manifest["reports"]["damage_matrix_in_duckdb"] == "table"
    assert manifest["reports"]["dedupe"]["collapsed"] == {"stratagems": 17, "detachment_abilities": 0}
    assert manifest["quality"] == quality.as_dict()
    assert manifest["publication"] == {"sequence": 1, "previous": None}
    assert (published.row_counts["damage_matrix"], published.row_counts["damage_vs_reference"]) == (480, 480)
    assert published.row_counts["weapons"] == 12 == manifest["row_counts"]["weapons"]
    assert reports.as_dict() == given_reports
    assert frames.keys() == given_frames.keys() and all(frames[k].equals(given_frames[k]) for k in frames)
    # hashes taken in a thread (tables) or reused from the feed index (feed files) are those of the files
    assert manifest["duckdb_contents_sha256"] == duckdb_content_hashes(tmp_path / config.DUCKDB_FILENAME)
    assert any(name.startswith("feed/factions/") for name in manifest["files"])
    assert manifest["files"] == {name: file_sha256(str(tmp_path / name)) for name in manifest["files"]}
