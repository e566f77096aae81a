"""The pipeline, stage by stage. Reading this file shows the whole flow; the work is in the stages.

Each stage takes what earlier stages returned and returns its own output (a new
dataset, frames, a computation or a file) with a typed report; none changes its input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import __version__, config
from pipeline.cache.fingerprint import inputs_key
from pipeline.cache.hashed import hash_ahead, hashing_stopped
from pipeline.cache.parts import PartCache, part_files
from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_columns import REFERENCE_KIND
from pipeline.damage.stage import DamageCaches, DamageOutputs, start_damage
from pipeline.damage.unit_results import UNIT_GRID_KIND
from pipeline.dataset import Dataset
from pipeline.dedupe.stage import dedupe_stage
from pipeline.findings.stage import findings_frame
from pipeline.helper_process import inputs_bytes, start_helper, stop_helpers
from pipeline.loadouts.stage import loadouts_stage
from pipeline.matchups.incremental import MATCHUPS_KIND, VS_REFERENCE_KIND
from pipeline.matchups.loadout_stage import unit_loadouts_stage
from pipeline.matchups.partition import Executor
from pipeline.matchups.stage import matchups_stage, plan_matchups
from pipeline.publish.aliases import with_id_aliases
from pipeline.publish.document_cache import DOCUMENTS_KIND, DocumentCache, documents_beside
from pipeline.publish.outdir import OutputFolder, open_output
from pipeline.publish.previous import PreviousRelease
from pipeline.publish.release import staging_release, version_id
from pipeline.publish.reuse import ReusedRelease, remember_release, removed_on_failure, reusable_release
from pipeline.publish.site_rendering import start_site
from pipeline.publish.table_reuse import FEED_KIND
from pipeline.publish.writer import write_release
from pipeline.quality.gx_runner import start_gx_import
from pipeline.quality.memo import QualityMemo
from pipeline.quality.release_checks import check_release
from pipeline.quality.stage import quality_gate
from pipeline.reconcile.stage import reconcile_stage
from pipeline.reports import RunReports
from pipeline.runtime import Beside, arrow_system_allocator, gc_thresholds, numpy_small_pages, release_free_heap
from pipeline.sources.registry import ParseResult, default_inputs, read_inputs
from pipeline.store import build_frames, store_stage
from pipeline.store.patch import DuckdbReuse
from pipeline.units.warm import warm_loops

StageContext = Callable[[str], AbstractContextManager[Any]]
#: Cache kind of the damage matrix's files (read by the engine to skip their rows, kept by the store).
MATRIX_KIND = "damage_matrix"
Frames = dict[str, pl.DataFrame]


@dataclass(frozen=True)
class RunResult:
    """What a run published (or reused: `reused` when inputs and code were those of `latest`)."""

    version: str
    release: Path
    row_counts: dict[str, int]
    reports: RunReports
    reused: bool = False
    #: Inputs (page files, Wahapedia or BSData folders) parsed by this run, and those the cache gave.
    inputs_parsed: tuple[str, ...] = ()
    inputs_from_cache: tuple[str, ...] = ()
    #: Partition files of each kind (`damage_matrix`, ...): how many were computed, how many the cache gave.
    partitions: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Partition files of each kind made from the cache with new costs (counted in neither of the above).
    recosted: dict[str, int] = field(default_factory=dict)


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
    profiles; on a thread beside id aliases (against the previous release) and findings) -> in a staging
    folder: unit matchups (partitions) -> store (DuckDB with the damage matrix) -> quality gates (with the
    release checks) -> publish (files, manifest). `matchup_scenarios`: the scenarios of `unit_matchups` (none:
    the table is not computed); `executor`: where its partitions run (default: in this process; docs/dask.md).
    Inputs and code unchanged since `latest` was built: `latest` is given back (the cache)."""
    with open_output(out_dir) as output, gc_thresholds(), numpy_small_pages():
        paths = list(inputs) or default_inputs(config.RAW_DIR)
        cache = config.cache_dir(output.path)
        key = inputs_key(paths, tuple(matchup_scenarios)) if cache is not None else ""
        reused = reusable_release(cache, key, output.latest, output.path) if cache is not None else None
        if reused is not None:
            return _reused_result(reused)
        with removed_on_failure(cache), hashing_stopped():  # a forked hashing process holds the folder's lock too
            result = _run(paths, output, stage, max_row_drop, cache, matchup_scenarios, executor)
        if cache is not None:
            remember_release(cache, key, result.release)
        return result


def _reused_result(reused: ReusedRelease) -> RunResult:
    counts = {str(k): int(v) for k, v in reused.manifest.get("row_counts", {}).items()}
    return RunResult(reused.version, reused.release, counts, reused.reports(), reused=True)


def _run(
    inputs: list[Path],
    output: OutputFolder,
    stage: StageContext,
    max_row_drop: float | None,
    cache: Path | None,
    matchup_scenarios: Sequence[str],
    executor: Executor | None = None,
) -> RunResult:
    arrow_system_allocator()  # for the whole run (docs/units.md#summaries-read-the-views-tables-issue-13)
    helpers = _helpers_for(inputs)
    gx = start_helper("gx") if helpers else None  # GX imports there while this process parses
    caches = DamageCaches(
        PartCache(cache, MATRIX_KIND), PartCache(cache, UNIT_GRID_KIND), PartCache(cache, REFERENCE_KIND)
    )
    before = output.path / output.latest.name if output.latest is not None else None
    frames, started, reports, parsed = _compute(inputs, stage, cache, caches, _placed_later(cache, before))
    release_free_heap()  # the records are gone: their pages go back while the damage blocks are being built
    if helpers:
        start_helper("site")  # it imports while the damage stage ends; it renders once the store wrote the tables
    version = version_id(frames["sources"]["sha256"].to_list(), __version__)
    publication = output.publication(version)
    previous = PreviousRelease.of(output.path, publication.previous)
    with stage("id aliases"):
        frames = with_id_aliases(frames, previous, version)
    with stage("findings"):
        findings = findings_frame(frames, reports["parse"], previous, version)
    with stage("damage matrix"):  # while the damage thread works: what the matchups stage will compute
        plan = plan_matchups(frames, matchup_scenarios, cache)
        if plan.computes:
            warm_loops()  # the matchup processes fork with the loops loaded
        elif gx is None:
            start_gx_import()  # no helper process, nothing forks: GX imports here while this thread waits
        damage, vs_reference = started.result()
        frames = {**frames, "damage_vs_reference": vs_reference, "findings": findings}
    release_free_heap()  # the records are gone: their pages go back before the matchup pool forks
    max_drop = config.MAX_ROW_DROP if max_row_drop is None else max_row_drop
    matrix_cache = PartCache(cache, MATRIX_KIND)
    duckdb_reuse = DuckdbReuse.of(cache, previous.folder if previous is not None else None)
    with staging_release(output.path, version, before_place=output.check_latest_unmoved) as release:
        with stage("unit matchups"):
            matchups = matchups_stage(frames, release, matchup_scenarios, executor, cache=cache, plan=plan)
            frames = {**frames, "unit_vs_reference": matchups.vs_reference}
        if gx is None:
            start_gx_import()  # no helper process: GX imports here after the matchup pool forks, while the store works
        with stage("store (DuckDB)"):
            stored = store_stage(frames, damage, release, matrix_cache, duckdb_reuse)
        with (
            start_site(frames, release, version, stored=True) as site,  # renders while the gates run
            _documents_beside(frames, release, cache, helpers) as documents,  # written while the gates run
        ):
            damage = damage.written()  # the matrix is on disk: its blocks are not held any longer
            release_free_heap()
            hashed = {**stored.matrix_hashes, **matchups.file_hashes, **stored.table_hashes}
            memo = QualityMemo.of(cache, release, hashed)
            with stage("quality gates"):
                checks = check_release(frames, damage.cells, publication.previous, max_drop)
                quality = quality_gate(release, checks=[checks], memo=memo)
            release_free_heap()  # the tables GX read as pandas
            run_reports = RunReports(
                **reports, damage=damage.report, store=stored, quality=quality, matchups=matchups.report
            )
            with stage("publish"):
                published = write_release(
                    release,
                    version,
                    frames,
                    damage,
                    run_reports,
                    publication,
                    previous,
                    hashed,
                    cache,
                    stored.table_files,
                    site,
                    documents,
                )
    matrix_cache.prune()  # published: the cached parts this run did not use go
    for damage_cache in (caches.unit_grid, caches.reference):
        if damage_cache is not None:
            damage_cache.prune()
    duckdb_reuse.cache.prune()
    matchups.prune()
    memo.prune()
    published.reuse.prune()
    published.documents.prune()
    latest = (output.path / config.LATEST_NAME).resolve()
    parts = {
        "damage_matrix": stored.partitions,
        "unit_grid": _counts(caches.unit_grid),
        "reference_columns": _counts(caches.reference),
        "duckdb_tables": stored.duckdb_tables,
        **matchups.cache.partitions,
        "quality": memo.suites,
        "quality_files": memo.file_summaries,
        "feed": published.reuse.feed_files,
        "faction_documents": published.documents.documents,
    }
    recosted = {"unit_matchups": matchups.cache.matchup_files_recosted}
    return RunResult(
        version, latest, published.row_counts, run_reports, False, parsed.parsed, parsed.reused, parts, recosted
    )


def _documents_beside(
    frames: Frames, release: Path, cache: Path | None, helpers: bool
) -> AbstractContextManager[Beside[DocumentCache] | None]:
    """The faction documents written beside the quality gates when the inputs are small enough for helper
    processes; for larger ones after the gates (publishing writes them): their cards and the gates' largest
    batch are not held at once (the 4x corpus's peak, docs/scaling.md#the-helper-process)."""
    return documents_beside(frames, release, cache) if helpers else nullcontext()


def _helpers_for(inputs: list[Path]) -> bool:
    """Whether this run's inputs are small enough for helper processes (docs/scaling.md#the-helper-process);
    if not, an earlier run's helpers (a long-lived process) are stopped and this run keeps their work."""
    helpers = inputs_bytes(inputs) <= config.HELPER_MAX_INPUT_BYTES
    if not helpers:
        stop_helpers()
    return helpers


#: Cache kinds whose files a run that changed little places, in the order it reaches them (`cache/hashed.py`):
#: before and in the store (the previous DuckDB file goes between), then in publishing.
AHEAD_UP_TO_STORE = (UNIT_GRID_KIND, REFERENCE_KIND, VS_REFERENCE_KIND, MATCHUPS_KIND, MATRIX_KIND)
AHEAD_IN_PUBLISH = (DOCUMENTS_KIND, FEED_KIND)


def _placed_later(cache: Path | None, latest: Path | None) -> list[Path]:
    """The cached files the run is likely to check before placing them, with the previous DuckDB file (which
    the store patches when it can) after those the store places."""
    previous = [latest / config.DUCKDB_FILENAME] if latest is not None else []
    return [*part_files(cache, AHEAD_UP_TO_STORE), *previous, *part_files(cache, AHEAD_IN_PUBLISH)]


def _counts(cache: PartCache | None) -> tuple[int, int]:
    """Parts computed (kept by this run) and taken from the cache."""
    return (0, 0) if cache is None else (len(cache.kept), len(cache.used - cache.kept))


def _compute(
    inputs: list[Path], stage: StageContext, cache: Path | None, caches: DamageCaches, ahead: list[Path]
) -> tuple[Frames, Beside[DamageOutputs], dict[str, Any], ParseResult]:
    """Parse to integrity: the frames, the damage stage started on them (it runs beside id aliases and
    findings) and the reports. The records (Python objects) of each stage are dropped when this returns; only
    the columnar frames go on."""
    with stage("parse inputs"):
        parsed = read_inputs(inputs, cache)
    hash_ahead(ahead)  # the files placed later, on the core the next stages leave idle (cache/hashed.py)
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
    started = start_damage(frames, caches)  # waited for in the "damage matrix" stage
    reports = {
        "parse": parsed.report,
        "dedupe": deduped.report,
        "reconcile": reconciled.report,
        "loadouts": loadouts.report,
        "unit_loadouts": golden_loadouts.report,
    }
    return frames, started, reports, replace(parsed, dataset=Dataset())
