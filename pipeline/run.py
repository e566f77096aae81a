"""The pipeline, stage by stage. Reading this file shows the whole flow; the work is in the stages.

Each stage takes what earlier stages returned and returns its own output (a new
dataset, frames, a computation or a file) with a typed report; none changes its input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import __version__, config
from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.findings.stage import with_findings
from pipeline.publish.aliases import with_id_aliases
from pipeline.publish.previous import previous_release
from pipeline.publish.release import staging_release, version_id
from pipeline.publish.writer import write_release
from pipeline.quality.stage import quality_gate
from pipeline.reconcile.stage import reconcile_stage
from pipeline.reports import RunReports
from pipeline.sources.registry import default_inputs, read_inputs
from pipeline.store import build_frames, store_stage

StageContext = Callable[[str], AbstractContextManager[Any]]


@dataclass(frozen=True)
class RunResult:
    version: str
    release: Path
    row_counts: dict[str, int]
    reports: RunReports


def _no_progress(name: str) -> AbstractContextManager[None]:
    return nullcontext()


def run_pipeline(inputs: Sequence[Path], out_dir: Path, stage: StageContext = _no_progress) -> RunResult:
    """parse -> dedupe -> reconcile -> reference profiles -> integrity -> damage (compute, and the slice
    against the reference profiles) -> id aliases (against the previous release) -> in a staging
    folder: store (DuckDB with the damage matrix) -> quality gates -> publish (files, manifest)."""
    inputs = list(inputs) or default_inputs(config.RAW_DIR)
    with stage("parse inputs"):
        parsed = read_inputs(inputs)
    with stage("dedupe rules"):
        deduped = dedupe_stage(parsed.dataset)
    with stage("reconcile sources"):
        reconciled = reconcile_stage(deduped.dataset)
    with stage("reference profiles"):
        referenced = reference_stage(reconciled.dataset)
    with stage("integrity"):
        frames = build_frames(referenced.dataset)
    with stage("damage matrix"):
        damage = damage_stage(frames)
        frames = {**frames, "damage_vs_reference": damage_vs_reference(damage, frames)}
    version = version_id(frames["sources"]["sha256"].to_list(), __version__)
    previous = previous_release(out_dir, version)
    with stage("id aliases"):
        frames = with_id_aliases(frames, previous, version)
    with stage("findings"):
        frames = with_findings(frames, parsed.report, previous, version)
    with staging_release(out_dir, version) as release:
        with stage("store (DuckDB)"):
            stored = store_stage(frames, damage, release)
        with stage("quality gates"):
            quality = quality_gate(release)
        reports = RunReports(
            parse=parsed.report,
            dedupe=deduped.report,
            reconcile=reconciled.report,
            damage=damage.report,
            store=stored,
            quality=quality,
        )
        with stage("publish"):
            published = write_release(release, version, frames, damage, reports, previous)
    return RunResult(version, (out_dir / config.LATEST_NAME).resolve(), published.row_counts, reports)
