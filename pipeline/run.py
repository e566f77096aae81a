"""The pipeline, stage by stage. Reading this file shows the whole flow; the work is in the stages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import __version__, config
from pipeline.damage.reference import load_reference_profiles
from pipeline.damage.stage import damage_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.publish.release import staging_release, version_id
from pipeline.publish.writer import write_release
from pipeline.quality.stage import quality_gate
from pipeline.reconcile.stage import reconcile_stage
from pipeline.sources.registry import default_inputs, read_inputs
from pipeline.store import build_frames, load_duckdb

StageContext = Callable[[str], AbstractContextManager[Any]]


@dataclass(frozen=True)
class RunResult:
    version: str
    release: Path
    row_counts: dict[str, int]
    reports: dict[str, Any]


def _no_progress(name: str) -> AbstractContextManager[None]:
    return nullcontext()


def run_pipeline(inputs: Sequence[Path], out_dir: Path, stage: StageContext = _no_progress) -> RunResult:
    """raw inputs -> sources -> dedupe -> reconcile -> store -> quality -> damage -> publish."""
    inputs = list(inputs) or default_inputs(config.RAW_DIR)
    with stage("parse inputs"):
        parsed = read_inputs(inputs)
    dataset = parsed.dataset
    with stage("dedupe rules"):
        reports: dict[str, Any] = {"parse": parsed.report.as_dict(), "dedupe": dedupe_stage(dataset)}
    with stage("reconcile sources"):
        reports["reconcile"] = reconcile_stage(dataset)
    dataset.extend(load_reference_profiles())
    with stage("integrity"):
        frames = build_frames(dataset)
    with stage("damage matrix"):
        damage = damage_stage(frames)
        reports["damage"] = damage.report.as_dict()
    version = version_id(frames["sources"]["sha256"].to_list(), __version__)
    with staging_release(out_dir, version) as release:
        with stage("store (DuckDB)"):
            load_duckdb(frames, release / config.DUCKDB_FILENAME)
        with stage("quality gates"):
            reports["quality"] = quality_gate(release)
        with stage("publish"):
            counts = write_release(release, version, frames, damage, reports)
    return RunResult(version, (out_dir / config.LATEST_NAME).resolve(), counts, reports)
