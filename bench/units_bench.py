"""Unit-engine benchmark: pairs per second on two grids, against the previous engine and a plain-Python baseline.

Grids:
- synthetic (`bench/units_synth.py`): weapons and statlines drawn independently, so few
  pairs repeat (the worst case for dedupe);
- corpus-shaped (`bench/units_corpus.py`): the real Wahapedia statlines, weapons, option
  sizes and Leader pairs (4,442 options), so pairs repeat as often as they will in the
  real table. A seeded sample of attackers against every target is timed, and the
  full table (every option against every option) is projected from the distinct jobs
  per second and the full table's distinct job count (exact: signatures only).

Per grid and phase: pairs, distinct jobs, median wall and CPU seconds of `compute_matchups`
(fresh engine each run: caches are built inside the timing), pairs/s, distinct jobs/s,
the previous engine (`reference_matchups`, the per-job batched chain) on the same grid and
the largest difference from it, the plain-Python exact chain per pair (dictionaries and
loops, one pair at a time) and the ratios. Peak RSS of the whole run.

    python bench/units_bench.py [--synthetic A T] [--corpus N] [--full] [--workers W]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import resource
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.units_corpus import corpus_attackers, corpus_options, corpus_targets
from bench.units_synth import attack_sides, target_options
from pipeline.units import AttackSide, Phase, TargetUnit, UnitEngine, compute_matchups
from pipeline.units.engine import reference_matchups
from pipeline.units.layout import one_line_layout
from pipeline.units.results import Matchups
from pipeline.units.signature import anti_keywords, attack_signature, defence_signature

RUNS = 3
SAMPLE_PLAIN = 200
BLOCK = 200
"""Attackers per block when the full corpus table is run (bounded memory: the stage writes each block)."""


def plain_pair(engine: UnitEngine, side: AttackSide, target: TargetUnit) -> list[float]:
    """P(k slain) of one pair, the chain in plain Python (no leader line, no vectors)."""
    job = engine.job(attack_signature(side), target)
    layout = one_line_layout(target.groups, target.leader, target.total_wounds + 1)
    groups = target.all_groups
    state = {0: 1.0}
    pending: list[tuple[Any, Any]] = []
    for (weapon, _), counts in zip(job.steps, job.counts, strict=True):
        losses = [engine.losses(weapon, g, side.phase) for g in groups]
        if counts.shape[1] > 1:
            pending.append(([loss[1] for loss in losses], counts))
        state = _wounds(state, counts.sum(axis=1).tolist(), [loss[0] for loss in losses], layout)
    for dev_losses, counts in pending:  # approximate joint only for the timing baseline when both occur
        state = _wounds(state, counts.sum(axis=0).tolist(), dev_losses, layout)
    dist = [0.0] * (target.models + 1)
    for s, p in state.items():
        dist[int(layout.slain[s])] += p
    return dist


def _wounds(state: dict[int, float], counts: list[float], losses: list[Any], layout: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    current = dict(state)
    for n, p_n in enumerate(counts):
        if n:
            current = _one_wound(current, losses, layout)
        for s, p in current.items():
            out[s] = out.get(s, 0.0) + p_n * p
    return out


def _one_wound(state: dict[int, float], losses: list[Any], layout: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    for s, p in state.items():
        group = int(layout.normal.group[s])
        if group < 0:
            out[s] = out.get(s, 0.0) + p
            continue
        remaining = int(layout.normal.remaining[s])
        for j, q in enumerate(losses[group].tolist()):
            moved = s + min(j, remaining)
            out[moved] = out.get(moved, 0.0) + p * q
    return out


def _timed(run: Callable[[], Matchups], runs: int) -> tuple[Matchups, list[float], list[float]]:
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    assert result is not None
    return result, walls, cpus


def _max_diff(a: Matchups, b: Matchups) -> float:
    return float(np.max(np.abs(np.concatenate(a.slain_dist) - np.concatenate(b.slain_dist)), initial=0.0))


def _plain(sides: list[AttackSide], targets: list[TargetUnit], fast: Matchups) -> dict[str, float]:
    """Seconds per pair of the plain-Python chain (rule caches warm) and its largest difference from the engine."""
    engine = UnitEngine()
    rng = np.random.default_rng(5)
    sample = [(int(rng.integers(len(sides))), int(rng.integers(len(targets)))) for _ in range(SAMPLE_PLAIN)]
    for a, t in sample:  # warm the shared rule caches so the timing is the chain only
        engine.job(attack_signature(sides[a]), targets[t])
    start = time.perf_counter()
    plain = [plain_pair(engine, sides[a], targets[t]) for a, t in sample]
    per_pair = (time.perf_counter() - start) / SAMPLE_PLAIN
    index = {(a, t): i for i, (a, t) in enumerate(fast.pairs.tolist())}
    comparable = [
        float(np.max(np.abs(np.asarray(p) - fast.slain_dist[index[pair]])))
        for pair, p in zip(sample, plain, strict=True)
        if not targets[pair[1]].attached
        and not any(c.shape[1] > 1 for c in engine.job(attack_signature(sides[pair[0]]), targets[pair[1]]).counts)
    ]
    return {"plain_python_s_per_pair": round(per_pair, 6), "max_abs_diff_vs_plain": max(comparable, default=0.0)}


def bench_grid(sides: list[AttackSide], targets: list[TargetUnit], runs: int, workers: int) -> dict[str, Any]:
    """One phase of one grid: the fast path, the previous engine and the plain-Python chain."""
    fast, walls, cpus = _timed(lambda: compute_matchups(sides, targets, engine=UnitEngine(workers=workers)), runs)
    reference, ref_walls, ref_cpus = _timed(lambda: reference_matchups(sides, targets), 1)
    pairs, wall, cpu = len(fast.pairs), statistics.median(walls), statistics.median(cpus)
    plain = _plain(sides, targets, fast)
    return {
        "pairs": pairs,
        "distinct_jobs": fast.distinct,
        "median_wall_s": round(wall, 3),
        "median_cpu_s": round(cpu, 3),
        "runs_wall_s": [round(t, 3) for t in walls],
        "pairs_per_s": round(pairs / wall),
        "distinct_per_s": round(fast.distinct / wall),
        "distinct_per_cpu_s": round(fast.distinct / cpu),
        "previous_engine_wall_s": round(ref_walls[0], 3),
        "previous_engine_cpu_s": round(ref_cpus[0], 3),
        "speedup_vs_previous_engine_cpu": round(ref_cpus[0] / cpu, 1),
        "max_abs_diff_vs_previous_engine": _max_diff(fast, reference),
        **plain,
        "speedup_vs_plain_per_pair": round(plain["plain_python_s_per_pair"] * pairs / wall, 1),
        "speedup_vs_plain_per_distinct_job": round(plain["plain_python_s_per_pair"] * fast.distinct / wall, 1),
    }


def full_table_jobs(sides: list[AttackSide], targets: list[TargetUnit], phase: Phase) -> dict[str, int]:
    """Distinct attack and defence signatures of the full table and their product (its distinct jobs)."""
    keywords = anti_keywords(sides)
    attacks = len({attack_signature(s) for s in sides})
    defences = len({defence_signature(t, phase, keywords) for t in targets})
    return {"pairs": len(sides) * len(targets), "attack_signatures": attacks, "defence_signatures": defences,
            "distinct_jobs": attacks * defences}  # fmt: skip


class RssSampler(threading.Thread):
    """Largest total RSS of this process and its children (the workers), sampled every 0.2 s."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak, self.running = 0, True

    def run(self) -> None:
        import psutil

        me = psutil.Process()
        while self.running:
            total = me.memory_info().rss
            for child in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    total += child.memory_info().rss
            self.peak = max(self.peak, total)
            time.sleep(0.2)


def run_full(sides: list[AttackSide], targets: list[TargetUnit], workers: int) -> dict[str, Any]:
    """The whole table in blocks of attackers grouped by signature (no job computed twice), results dropped."""
    order = sorted(range(len(sides)), key=lambda i: repr(attack_signature(sides[i])))
    engine = UnitEngine(workers=workers)
    sampler = RssSampler()
    sampler.start()
    wall, cpu, children, jobs = time.perf_counter(), time.process_time(), _children_cpu(), 0
    for begin in range(0, len(order), BLOCK):
        block = [sides[i] for i in order[begin : begin + BLOCK]]
        jobs += compute_matchups(block, targets, engine=engine).distinct
    wall, cpu, children = time.perf_counter() - wall, time.process_time() - cpu, _children_cpu() - children
    sampler.running = False
    pairs = len(sides) * len(targets)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu + children, 1), "distinct_jobs": jobs,
            "pairs_per_s": round(pairs / wall), "peak_total_rss_mb": sampler.peak >> 20}  # fmt: skip


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_units_bench(
    attackers: int = 200, targets: int = 200, corpus_sample: int = 120, full: bool = False, workers: int = 1
) -> dict[str, Any]:
    result: dict[str, Any] = {"workers": workers}
    synthetic_targets = target_options(targets)
    result["synthetic"] = {"attackers": attackers, "targets": targets}
    for phase in Phase:
        sides = attack_sides(attackers, phase)
        result["synthetic"][phase.value] = bench_grid(sides, synthetic_targets, RUNS, workers)
    sheets, options = corpus_options()
    corpus = corpus_targets(sheets, options)
    result["corpus"] = {"options": len(options), "sample_attackers": corpus_sample}
    projected = 0.0
    for phase in Phase:
        every = corpus_attackers(sheets, options, phase)
        sides = random.Random(1).sample(every, corpus_sample)
        grid = bench_grid(sides, corpus, 1, workers)
        table = full_table_jobs(every, corpus, phase)
        seconds = table["distinct_jobs"] / grid["distinct_per_cpu_s"]
        projected += seconds
        result["corpus"][phase.value] = {**grid, "full_table": table, "projected_cpu_s": round(seconds)}
        if full:
            result["corpus"][phase.value]["full_run"] = run_full(every, corpus, workers)
    result["corpus"]["projected_cpu_s_both_phases"] = round(projected)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["peak_rss_children_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return result


if __name__ == "__main__":
    import json

    parser = argparse.ArgumentParser()
    parser.add_argument("--synthetic", nargs=2, type=int, default=[200, 200], metavar=("ATTACKERS", "TARGETS"))
    parser.add_argument("--corpus", type=int, default=120, metavar="ATTACKERS", help="sampled corpus attackers")
    parser.add_argument("--full", action="store_true", help="also run the whole corpus table (minutes)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    attackers, targets = args.synthetic
    print(json.dumps(run_units_bench(attackers, targets, args.corpus, args.full, args.workers), indent=2))
