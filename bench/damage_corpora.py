"""The damage stage on the three shared corpora (pages + Wahapedia + BSData), as a run computes it.

`run_corpora_bench()` builds the frames the pipeline hands the damage stage
(parse -> dedupe -> reconcile -> reference profiles -> integrity; not timed as
damage), then times `damage_stage(frames)` (median of RUNS; wall and process CPU,
since the 2-core machine is shared), its two parts — the per-weapon engine on
distinct profiles (`build_blocks`) and the unit outputs `models_slain` /
`wounds_lost` (`unit_grid`) — and writing every scenario to Parquet once.
It prints and returns the figures with the distinct unit keys (report fields
`unit_*`). Run alone: `python -m bench.damage_corpora`.
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config
from pipeline.damage.effective import effective_weapons
from pipeline.damage.engine import damage_keys
from pipeline.damage.expand import build_blocks
from pipeline.damage.profiles import prepare_targets, prepare_weapons
from pipeline.damage.reference import reference_stage
from pipeline.damage.scenarios import SCENARIOS, resolve_scenarios
from pipeline.damage.stage import damage_stage, targets_of
from pipeline.damage.unit_results import unit_grid
from pipeline.dedupe.stage import dedupe_stage
from pipeline.reconcile.stage import reconcile_stage
from pipeline.sources.registry import read_inputs
from pipeline.store import build_frames

RUNS = 3


def corpora_frames() -> dict[str, pl.DataFrame]:
    """The frames `damage_stage` gets in a run on the three corpora."""
    dataset = read_inputs([config.RAW_PAGES_DIR, config.wahapedia_dir(), config.bsdata_dir()]).dataset
    dataset = reference_stage(reconcile_stage(dedupe_stage(dataset).dataset).dataset).dataset
    return build_frames(dataset)


def _timed(action: Callable[[], object], runs: int = RUNS) -> dict[str, Any]:
    """Median wall and CPU seconds of `runs` runs, and every run's figures."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "wall_s": [round(t, 2) for t in walls],
        "cpu_s": [round(t, 2) for t in cpus],
    }


def _parts(frames: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """The engine's two halves on the stage's own inputs, each timed alone."""
    weapons = prepare_weapons(frames["weapons"], frames["weapon_abilities"])
    anti = weapons.abilities.anti_keywords
    targets = prepare_targets(targets_of(frames), anti)
    effective = effective_weapons(weapons.profiles, resolve_scenarios(SCENARIOS), anti)
    keys = damage_keys([g.profiles for g in effective.groups], targets.profiles)
    return {
        "per_weapon_engine": _timed(lambda: build_blocks(effective, targets, keys)),
        "unit_outputs": _timed(lambda: unit_grid(effective, targets, keys, anti)),
    }


def run_corpora_bench() -> dict[str, Any]:
    """Time the damage stage on the three corpora; print and return the figures."""
    frames = corpora_frames()
    computation = damage_stage(frames)
    report = computation.report
    figures: dict[str, Any] = {
        "weapons": report.weapons,
        "targets": report.targets,
        "cells_per_scenario": report.cells_per_scenario,
        "effective_weapon_profiles": report.effective_weapon_profiles,
        "computed_cells": report.computed_cells,
        "unit_keys": {
            "weapon_parts": report.unit_weapon_parts,
            "target_parts": report.unit_target_parts,
            "count_keys": report.unit_count_keys,
            "loss_keys": report.unit_loss_keys,
            "distinct_pairs": report.unit_distinct_pairs,
        },
        "damage_stage": _timed(lambda: damage_stage(frames)),
        **_parts(frames),
    }
    with tempfile.TemporaryDirectory() as tmp:
        figures["write_all_scenarios"] = _timed(lambda: computation.write_parquet(Path(tmp)), runs=1)
        figures["parquet_mb"] = round(sum(p.stat().st_size for p in Path(tmp).rglob("*.parquet")) / 2**20, 1)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    _print(figures)
    return figures


def _print(f: dict[str, Any]) -> None:
    print("damage stage on pages + Wahapedia + BSData")
    print(f"  {f['weapons']} weapons x {f['targets']} targets = {f['cells_per_scenario']:,} cells per scenario")
    print(f"  per-weapon engine: {f['computed_cells']:,} pairs of {f['effective_weapon_profiles']} effective profiles")
    keys = f["unit_keys"]
    print(
        f"  unit outputs: {keys['weapon_parts']} weapon parts x {keys['target_parts']} target parts -> "
        f"{keys['count_keys']:,} count keys, {keys['loss_keys']:,} loss keys, {keys['distinct_pairs']:,} distinct pairs"
    )
    for name in ("damage_stage", "per_weapon_engine", "unit_outputs", "write_all_scenarios"):
        t = f[name]
        print(f"  {name}: {t['median_wall_s']:.2f} s wall, {t['median_cpu_s']:.2f} s CPU (runs {t['wall_s']})")
    print(f"  Parquet {f['parquet_mb']} MiB; peak RSS {f['peak_rss_mb']} MiB")


if __name__ == "__main__":
    run_corpora_bench()
