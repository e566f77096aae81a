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
from pipeline.loadouts.stage import loadouts_stage
from pipeline.matchups.loadout_stage import unit_loadouts_stage
from pipeline.matchups.partition import Executor
from pipeline.matchups.stage import matchups_stage
from pipeline.publish.aliases import with_id_aliases
from pipeline.publish.outdir import OutputFolder, open_output
from pipeline.publish.previous import PreviousRelease
from pipeline.publish.release import staging_release, version_id
from pipeline.publish.writer import write_release
from pipeline.quality.release_checks import check_release
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


def run_pipeline(
    inputs: Sequence[Path],
    out_dir: Path,
    stage: StageContext = _no_progress,
    max_row_drop: float | None = None,
    matchup_scenarios: Sequence[str] = config.MATCHUP_SCENARIOS,
    executor: Executor | None = None,
) -> RunResult:
    """The output folder checked and locked first; then parse -> dedupe -> loadouts -> reconcile -> golden
    loadouts -> reference profiles -> integrity -> damage (compute, and the slice against the reference
    profiles) -> id aliases (against the previous release) -> in a staging folder: unit matchups (partitions)
    -> store (DuckDB with the damage matrix) -> quality gates (with the release checks) -> publish (files,
    manifest). `matchup_scenarios`: the scenarios of `unit_matchups` (none: the table is not computed);
    `executor`: where its partitions run (default: in this process; docs/dask.md)."""
    with open_output(out_dir) as output:
        inputs = list(inputs) or default_inputs(config.RAW_DIR)
        return _run(inputs, output, stage, max_row_drop, matchup_scenarios, executor)


def _run(
    inputs: list[Path],
    output: OutputFolder,
    stage: StageContext,
    max_row_drop: float | None,
    matchup_scenarios: Sequence[str],
    executor: Executor | None = None,
) -> RunResult:
    with stage("parse inputs"):
        parsed = read_inputs(inputs)
    with stage("dedupe rules"):
        deduped = dedupe_stage(parsed.dataset)
    with stage("default loadouts"):
        loadouts = loadouts_stage(deduped.dataset)
    with stage("reconcile sources"):
        reconciled = reconcile_stage(loadouts.dataset)
    with stage("golden loadouts"):
        golden_loadouts = unit_loadouts_stage(reconciled.dataset)
    with stage("reference profiles"):
        referenced = reference_stage(golden_loadouts.dataset)
    with stage("integrity"):
        frames = build_frames(referenced.dataset)
    with stage("damage matrix"):
        damage = damage_stage(frames)
        frames = {**frames, "damage_vs_reference": damage_vs_reference(damage, frames)}
    version = version_id(frames["sources"]["sha256"].to_list(), __version__)
    publication = output.publication(version)
    previous = PreviousRelease.of(output.path, publication.previous)
    with stage("id aliases"):
        frames = with_id_aliases(frames, previous, version)
    max_drop = config.MAX_ROW_DROP if max_row_drop is None else max_row_drop
    with staging_release(output.path, version, before_place=output.check_latest_unmoved) as release:
        with stage("unit matchups"):
            matchups = matchups_stage(frames, release, matchup_scenarios, executor)
            frames = {**frames, "unit_vs_reference": matchups.vs_reference}
        with stage("store (DuckDB)"):
            stored = store_stage(frames, damage, release)
        with stage("quality gates"):
            checks = check_release(frames, damage.cells, publication.previous, max_drop)
            quality = quality_gate(release, checks=[checks])
        reports = RunReports(
            parse=parsed.report,
            dedupe=deduped.report,
            reconcile=reconciled.report,
            damage=damage.report,
            store=stored,
            quality=quality,
            loadouts=loadouts.report,
            unit_loadouts=golden_loadouts.report,
            matchups=matchups.report,
        )
        with stage("publish"):
            published = write_release(release, version, frames, damage, reports, publication, previous)
    return RunResult(version, (output.path / config.LATEST_NAME).resolve(), published.row_counts, reports)
