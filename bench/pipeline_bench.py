"""End to end: `run_pipeline` on a corpus, each stage's wall time and the process's RSS after it.

    python bench/pipeline_bench.py [INPUT ...]   # default: raw/pages + the shared Wahapedia and BSData
    DATASLATE_BENCH_UNIT_MATCHUPS=none python bench/pipeline_bench.py   # without the unit x unit table

Printed as JSON (one object); `bench/run.py` runs it in a child process (`pipeline` part).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def peak_rss_mb() -> float:
    """The process's peak RSS so far (Linux: ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mb() -> float:
    """The process's RSS now (/proc; 0 where there is none)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0.0
    return round(pages * resource.getpagesize() / 2**20, 1)


def cpu_s() -> float:
    """CPU seconds (user + system) of the process so far, every thread and every finished child process
    (the matchup pool) included: on a shared box wall time follows the load, CPU time much less."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class StageClock:
    """A `run_pipeline` stage context that records seconds, CPU seconds, RSS and peak RSS per stage."""

    def __init__(self) -> None:
        self.stages: dict[str, dict[str, float]] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start, cpu = time.perf_counter(), cpu_s()
        yield
        self.stages[name] = {
            "s": round(time.perf_counter() - start, 2),
            "cpu_s": round(cpu_s() - cpu, 2),
            "rss_mb": rss_mb(),
            "peak_mb": peak_rss_mb(),
        }


def default_inputs() -> list[Path]:
    from pipeline import config

    return [config.RAW_PAGES_DIR, config.wahapedia_dir(), config.bsdata_dir()]


def unit_matchup_scenarios() -> tuple[str, ...]:
    """Scenarios of the unit x unit table: DATASLATE_BENCH_UNIT_MATCHUPS (comma-separated, or `none`)."""
    from pipeline import config

    chosen = os.environ.get("DATASLATE_BENCH_UNIT_MATCHUPS", "")
    if not chosen:
        return config.MATCHUP_SCENARIOS
    return () if chosen == "none" else tuple(chosen.split(","))


def run_once(inputs: list[Path], out: Path) -> dict[str, Any]:
    """One run into `out`: total seconds, per-stage figures, peak RSS, rows of the damage matrix."""
    from pipeline.helper_process import helpers_peak_rss_mb
    from pipeline.run import run_pipeline

    clock = StageClock()
    start, cpu = time.perf_counter(), cpu_s()
    result = run_pipeline(inputs, out, stage=clock, matchup_scenarios=unit_matchup_scenarios())
    total, total_cpu = time.perf_counter() - start, cpu_s() - cpu
    release_mb = sum(p.stat().st_size for p in result.release.rglob("*") if p.is_file()) / 2**20
    return {
        "total_s": round(total, 2),
        "total_cpu_s": round(total_cpu, 2),
        "reused": result.reused,
        "stages": clock.stages,
        "peak_rss_mb": peak_rss_mb(),
        "peak_rss_children_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "helpers_peak_rss_mb": helpers_peak_rss_mb(),
        "unit_matchup_scenarios": list(unit_matchup_scenarios()),
        "unit_matchups_rows": result.row_counts.get("unit_matchups", 0),
        "damage_matrix_rows": result.row_counts.get("damage_matrix", 0),
        "release_mb": round(release_mb, 1),
    }


def main(argv: list[str]) -> None:
    inputs = [Path(a) for a in argv] or default_inputs()
    with tempfile.TemporaryDirectory(prefix="dataslate-bench-") as tmp:
        print(json.dumps(run_once(inputs, Path(tmp) / "out"), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
