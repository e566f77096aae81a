"""The matchups stage (in the staging release, before the store): `unit_matchups` written partition by
partition into the release folder, and `unit_vs_reference` returned as a table for the store and feed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config
from pipeline.cache.parts import PartCache
from pipeline.frame_types import table_schema
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.incremental import BASIS_KIND, MATCHUPS_KIND, PLAN_KIND, VS_REFERENCE_KIND
from pipeline.matchups.partition import (
    Contents,
    Executor,
    MatchupInputs,
    WrittenPartition,
    file_contents,
    needs_computing,
    write_partitions,
)
from pipeline.matchups.reference import reference_units, unit_vs_reference
from pipeline.matchups.sides import UnitOption, unit_options
from pipeline.matchups.tables import golden_tables
from schemas.units import UnitVsReference


@dataclass(frozen=True)
class MatchupReport:
    """Options built, what each can do, and what was written (counts only)."""

    options: int
    attached: int
    targets: int
    attackers: dict[str, int]
    partitions: int
    rows: int
    parquet_bytes: int
    vs_reference_rows: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "options": self.options,
            "attached_options": self.attached,
            "targets": self.targets,
            "attackers": dict(sorted(self.attackers.items())),
            "unit_matchups": {"partitions": self.partitions, "rows": self.rows, "parquet_bytes": self.parquet_bytes},
            "unit_vs_reference_rows": self.vs_reference_rows,
        }


def frame_reader(frames: Mapping[str, pl.DataFrame]) -> Any:
    def read(table: str, columns: Sequence[str]) -> list[dict[str, Any]]:
        frame = frames.get(table)
        if frame is None:
            return []
        return frame.select([c for c in columns if c in frame.columns]).to_dicts()

    return read


def matchup_options(frames: Mapping[str, pl.DataFrame]) -> list[UnitOption]:
    return unit_options(golden_tables(frame_reader(frames)))


@dataclass(frozen=True)
class MatchupPlan:
    """What the stage reads (its options and the reference units), the content keys of the `unit_vs_reference`
    pieces (none without a cache folder), and whether the stage computes anything with the compiled loops: the
    run loads them before the stage's processes fork only then (`units/warm.py`). Needs no damage output, so the
    run makes it while the damage stage ends."""

    options: list[UnitOption]
    references: list[UnitOption]
    vs_reference_keys: dict[str, str]
    computes: bool
    #: With a cache folder and the unit x unit table: each chunk's file contents (`partition.file_contents`), and
    #: the cache of `solved_on` plans they were read with (the stage's, so that it keeps what they used).
    contents: Contents | None = None
    plans: PartCache | None = None


def plan_matchups(
    frames: Mapping[str, pl.DataFrame], scenarios: Sequence[str] = ("default",), cache: Path | None = None
) -> MatchupPlan:
    """The plan of `matchups_stage(frames, scenarios=scenarios, cache=cache)`. It computes when a
    `unit_matchups` file has neither an entry nor a basis in the cache (a points change leaves every basis), or
    any `unit_vs_reference` piece has no entry (a points change moves none)."""
    options = matchup_options(frames)
    references = reference_units(frames["reference_profiles"].to_dicts()) if "reference_profiles" in frames else []
    pieces = PartCache(cache, VS_REFERENCE_KIND)
    keys: dict[str, str] = {}
    contents, plans = None, None
    if pieces.folder is not None:
        from pipeline.matchups.incremental import costless_digester, vs_reference_keys

        reads = costless_digester()  # one for both: the options' sides are read once
        golden = [o for o in options if "+" not in o.unit_id]
        keys = vs_reference_keys(golden, references, config.MATCHUP_REFERENCE_SCENARIOS, reads)
        if scenarios:
            plans = PartCache(cache, PLAN_KIND)
            contents = file_contents(_inputs(options, 1), scenarios, plans, reads)
    held = pieces.entry_keys()
    computes = not keys or any(key not in held for key in keys.values())
    if scenarios:
        files, bases = PartCache(cache, MATCHUPS_KIND), PartCache(cache, BASIS_KIND)
        computes = computes or contents is None or needs_computing(contents, files, bases)
    return MatchupPlan(options, references, keys, computes, contents, plans)


def _inputs(options: list[UnitOption], workers: int) -> MatchupInputs:
    return MatchupInputs(
        options,
        workers=workers,
        keep_distribution=config.MATCHUP_KEEP_DISTRIBUTION,
        max_pairs=config.MATCHUP_MAX_PAIRS,
    )


@dataclass(frozen=True)
class MatchupCacheReport:
    """What the part cache gave and what was computed (stderr and benchmarks only: never published, so a run
    with a warm cache publishes the bytes of a cold one)."""

    matchup_files_reused: int = 0
    matchup_files_computed: int = 0
    vs_reference_pieces_reused: int = 0
    vs_reference_pieces_computed: int = 0
    #: Files made from the cache's basis with new costs (neither computed nor reused as they were).
    matchup_files_recosted: int = 0

    @property
    def partitions(self) -> dict[str, tuple[int, int]]:
        """Per table, (computed, from the cache), as `RunResult.partitions` gives them."""
        return {
            "unit_matchups": (self.matchup_files_computed, self.matchup_files_reused),
            "unit_vs_reference": (self.vs_reference_pieces_computed, self.vs_reference_pieces_reused),
        }


@dataclass(frozen=True)
class MatchupOutcome:
    vs_reference: pl.DataFrame
    written: list[WrittenPartition]
    report: MatchupReport
    cache: MatchupCacheReport = MatchupCacheReport()
    #: The stage's part caches: `prune()` each once the release is published (drops the parts not used).
    parts: tuple[PartCache, ...] = ()

    @property
    def file_hashes(self) -> dict[str, str]:
        """sha256 of the `unit_matchups` files the cache kept or placed, by path in the release (not read again)."""
        return {w.path: w.sha256 for w in self.written if w.sha256}

    def prune(self) -> int:
        """Drop the cached parts this run did not use (call after a successful publish); how many."""
        return sum(part.prune() for part in self.parts)


def matchups_stage(
    frames: Mapping[str, pl.DataFrame],
    release: Path,
    scenarios: Sequence[str] = ("default",),
    executor: Executor | None = None,
    workers: int | None = None,
    cache: Path | None = None,
    plan: MatchupPlan | None = None,
) -> MatchupOutcome:
    """`unit_matchups/` under `release` for `scenarios`; `unit_vs_reference` for every published scenario.
    Partitions run on `workers` forked processes (`ForkExecutor`) unless an executor is given; the engine is
    serial inside a task unless the executor says otherwise (`engine_workers`). With a `cache` folder, files
    and pieces whose content key has an entry are taken from it and only the rest is computed (and kept);
    the published bytes are the same either way (docs/units.md#partitions). `plan`: `plan_matchups` of the same
    frames, scenarios and cache, made earlier (made here when not given)."""
    workers = workers or config.MATCHUP_WORKERS
    executor = executor or ForkExecutor(workers)
    plan = plan if plan is not None else plan_matchups(frames, scenarios, cache)
    options = plan.options
    inputs = _inputs(options, getattr(executor, "engine_workers", workers))
    files, pieces = PartCache(cache, MATCHUPS_KIND), PartCache(cache, VS_REFERENCE_KIND)
    bases, plans = PartCache(cache, BASIS_KIND), plan.plans or PartCache(cache, PLAN_KIND)
    keys = inputs.keys(scenarios)
    written = write_partitions(inputs, keys, release, executor, files, bases, plans, plan.contents)
    arrow = unit_vs_reference(
        options, plan.references, config.MATCHUP_REFERENCE_SCENARIOS, workers, pieces, plan.vs_reference_keys
    )
    schema = table_schema(UnitVsReference)
    vs_reference = pl.from_arrow(arrow)
    assert isinstance(vs_reference, pl.DataFrame)
    vs_reference = vs_reference.select([pl.col(c).cast(t) if c in vs_reference.columns else pl.lit(None, t).alias(c)
                                        for c, t in schema.items()])  # fmt: skip
    report = MatchupReport(
        options=len(options),
        attached=sum("+" in o.unit_id for o in options),
        targets=len(inputs.targets),
        attackers={p.value: sum(p in o.sides for o in options) for p in _phases()},
        partitions=len(written),
        rows=sum(w.rows for w in written),
        parquet_bytes=sum(w.bytes for w in written),
        vs_reference_rows=vs_reference.height,
    )
    golden = len({o.faction_slug for o in options if "+" not in o.unit_id})
    reused, recosted = sum(w.reused for w in written), sum(w.recosted for w in written)
    pieces_reused = len(pieces.used) - len(pieces.kept)
    cached = MatchupCacheReport(
        reused, len(written) - reused - recosted, pieces_reused, golden - pieces_reused, recosted
    )
    # the key is unique (unit_points' key is (unit_id, models)); stable all the same, so that the order never
    # depends on how the pieces were assembled
    vs_reference = vs_reference.sort(list(UnitVsReference.KEY), maintain_order=True)
    return MatchupOutcome(vs_reference, written, report, cached, (files, bases, plans, pieces))


def _phases() -> list[Any]:
    from pipeline.units.model import Phase

    return list(Phase)
