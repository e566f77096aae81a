"""The default-scenario `unit_matchups` table on the three shared corpora, as a run computes it.

`run_matchups_bench()` builds the frames a run hands the matchups stage (parse -> dedupe -> loadouts ->
reconcile -> golden loadouts -> reference profiles -> integrity; timed apart), then times
`matchups_stage(frames, folder)` once (the full table is minutes of CPU: one run, not a median), with the
golden loadout resolution, rows, partitions, Parquet bytes, CPU of the process and its forked workers and peak
RSS; then `unit_vs_reference` alone (part of the stage), engines cold. Beside it: the plain-Python exact
chain per pair on a sample (`bench/units_bench.py`) projected to every pair, and the wall time of a
`dataslate matchup` process against the tables written as Parquet (median of 5 after one warm-up run).
Run alone: `python -m bench.matchups_bench` (under `/usr/bin/time -v` for the whole process's peak RSS).
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config

PLAIN_SAMPLE = 60
CLI_PAIR = ("Intercessor Squad", "Boyz")
CLI_RUNS = 5


def corpora_frames() -> tuple[dict[str, pl.DataFrame], dict[str, Any]]:
    """The frames of a run on the three corpora, and the golden loadout report."""
    from pipeline.damage.reference import reference_stage
    from pipeline.dedupe.stage import dedupe_stage
    from pipeline.loadouts.stage import loadouts_stage
    from pipeline.matchups.loadout_stage import unit_loadouts_stage
    from pipeline.reconcile.stage import reconcile_stage
    from pipeline.sources.registry import read_inputs
    from pipeline.store import build_frames

    dataset = read_inputs([config.RAW_PAGES_DIR, config.wahapedia_dir(), config.bsdata_dir()]).dataset
    dataset = reconcile_stage(loadouts_stage(dedupe_stage(dataset).dataset).dataset).dataset
    golden = unit_loadouts_stage(dataset)
    return build_frames(reference_stage(golden.dataset).dataset), golden.report.as_dict()


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def plain_baseline(frames: dict[str, pl.DataFrame], pairs: int) -> dict[str, Any]:
    """Seconds per pair of the plain-Python chain on a sample of real pairs, projected to `pairs`."""
    from bench.units_bench import plain_pair
    from pipeline.matchups.stage import matchup_options
    from pipeline.units.engine import UnitEngine
    from pipeline.units.model import Phase

    options = matchup_options(frames)
    armed = [(o, p) for o in options for p in Phase if p in o.sides]
    targets = [o.target for o in options if o.target is not None]
    rng = random.Random(1)
    sample = [(rng.choice(armed), rng.choice(targets)) for _ in range(PLAIN_SAMPLE)]
    engine = UnitEngine("default")
    for (option, phase), target in sample[:5]:  # rule caches warm, as in the engine's own run
        plain_pair(engine, option.sides[phase], target)
    start = time.perf_counter()
    for (option, phase), target in sample:
        plain_pair(engine, option.sides[phase], target)
    per_pair = (time.perf_counter() - start) / len(sample)
    return {"sample_pairs": len(sample), "s_per_pair": round(per_pair, 5), "projected_s": round(per_pair * pairs)}


def cli_wall(frames: dict[str, pl.DataFrame], folder: Path) -> dict[str, Any]:
    """Wall time of a `dataslate matchup` process (start-up included) on the tables as Parquet: median of
    `CLI_RUNS`, after a run that warms the page cache.

    The folder holds the release's Parquet tables; the DuckDB file and manifest are empty stand-ins (the command
    reads neither, but finds a release by them).
    """
    from pipeline.store.parquet import write_parquet_tables

    write_parquet_tables(frames, folder)
    (folder / config.DUCKDB_FILENAME).touch()
    (folder / "manifest.json").write_text("{}")
    command = [sys.executable, "-m", "pipeline.cli", "matchup", *CLI_PAIR, "--phase", "shooting"]
    walls = []
    for _ in range(CLI_RUNS + 1):  # the first run warms the page cache: not counted
        start = time.perf_counter()
        proc = subprocess.run([*command, "--release", str(folder)], capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - start)
    counted = sorted(walls[1:])
    return {"pair": list(CLI_PAIR), "runs": CLI_RUNS, "wall_s": round(statistics.median(counted), 3),
            "wall_min_max_s": [round(counted[0], 3), round(counted[-1], 3)], "exit_code": proc.returncode,
            "output": (proc.stdout or proc.stderr).splitlines()[-4:]}  # fmt: skip


def vs_reference_time(frames: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """`unit_vs_reference` alone (it is part of the stage's time above), engines cold as in a run."""
    from pipeline.matchups import partition
    from pipeline.matchups.reference import reference_units, unit_vs_reference
    from pipeline.matchups.stage import matchup_options

    options, references = matchup_options(frames), reference_units(frames["reference_profiles"].to_dicts())
    partition._ENGINES.clear()
    wall, cpu = time.perf_counter(), _cpu()
    table = unit_vs_reference(options, references, config.MATCHUP_REFERENCE_SCENARIOS, config.MATCHUP_WORKERS)
    return {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(_cpu() - cpu, 1), "rows": table.num_rows}


def run_matchups_bench() -> dict[str, Any]:
    from pipeline.matchups.stage import matchups_stage

    start = time.perf_counter()
    frames, loadouts = corpora_frames()
    result: dict[str, Any] = {"frames_s": round(time.perf_counter() - start, 1), "unit_loadouts": loadouts["overall"]}
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), _cpu()
        outcome = matchups_stage(frames, Path(tmp))
        result["matchups_stage"] = {
            "wall_s": round(time.perf_counter() - wall, 1),
            "cpu_s": round(_cpu() - cpu, 1),
            "workers": config.MATCHUP_WORKERS,
            **outcome.report.as_dict(),
        }
    result["unit_vs_reference"] = vs_reference_time(frames)
    rows = int(result["matchups_stage"]["unit_matchups"]["rows"])
    baseline = plain_baseline(frames, rows)
    baseline["ratio_plain_over_stage"] = round(baseline["projected_s"] / max(result["matchups_stage"]["wall_s"], 1e-9))
    result["plain_python"] = baseline
    with tempfile.TemporaryDirectory() as tmp:
        result["dataslate_matchup"] = cli_wall(frames, Path(tmp))
    result["peak_rss_self_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["peak_rss_children_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return result


if __name__ == "__main__":
    print(json.dumps(run_matchups_bench(), indent=2, default=str))
