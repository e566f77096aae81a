"""Unit-engine benchmark: pairs per second on a synthetic grid, against per-pair baselines.

Prints and returns: for each phase, pairs, distinct jobs after dedupe, median
wall time of `compute_matchups` over the grid (fresh engine each run, so caches
are built inside the timing), pairs/s and distinct jobs/s, peak RSS; the time
per pair of a plain-Python exact implementation (same rules, dictionaries and
loops, one pair at a time) and its largest difference from the engine; the time
per pair of warhammer-stats 0.1.1 (one weapon against one profile, no unit
allocation: a speed reference only); and the ratios.

    python bench/units_bench.py [attackers targets]
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.units_synth import attack_sides, target_options
from pipeline.units import AttackSide, Phase, TargetUnit, UnitEngine, compute_matchups
from pipeline.units.layout import one_line_layout
from pipeline.units.signature import attack_signature

RUNS = 3
SAMPLE_PLAIN = 300
SAMPLE_WARHAMMER_STATS = 60


def plain_pair(engine: UnitEngine, side: AttackSide, target: TargetUnit) -> list[float]:
    """P(k slain) of one pair, the chain in plain Python (no leader line, no vectors)."""
    job = engine.job(attack_signature(side), target)
    layout = one_line_layout(target.groups, target.leader, target.total_wounds + 1)
    groups = target.all_groups
    state = {0: 1.0}
    pending: list[tuple[list[Any], Any]] = []
    for (weapon, _), counts in zip(job.steps, job.counts, strict=True):
        losses = [engine.losses(weapon, g, side.phase) for g in groups]
        normal = counts.sum(axis=1).tolist()
        if counts.shape[1] > 1:
            pending.append(([loss[1] for loss in losses], counts))
        state = _wounds(state, normal, [loss[0] for loss in losses], layout)
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


def _ws_dice(dice: Any) -> Any:
    from warhammer_stats import PMF, PMFCollection

    parts = [PMF.dn(dice.sides)] * dice.n if dice.n else []
    return PMFCollection(parts + ([PMF.static(dice.plus)] if dice.plus or not dice.n else []))


def time_warhammer_stats(sides: list[AttackSide], targets: list[TargetUnit]) -> float:
    """Seconds per (weapon, profile) run of warhammer-stats' exact Attack (statline only)."""
    from warhammer_stats import Attack, Target, Weapon

    rng = np.random.default_rng(3)
    start, runs = time.perf_counter(), 0
    for _ in range(SAMPLE_WARHAMMER_STATS):
        side, target = sides[rng.integers(len(sides))], targets[rng.integers(len(targets))]
        g = target.groups[0]
        for entry in side.entries:
            w = entry.choices[0]
            weapon = Weapon(bs=w.skill or 2, shots=_ws_dice(w.attacks), strength=int(w.strength.mean),
                            ap=-w.ap, damage=_ws_dice(w.damage))  # fmt: skip
            Attack(weapon, Target(toughness=target.toughness, save=g.save, invuln=g.invuln_ranged, fnp=g.fnp,
                                  wounds=g.wounds)).run()  # fmt: skip
            runs += 1
    return (time.perf_counter() - start) / max(1, runs)


def run_units_bench(attackers: int = 400, targets: int = 400) -> dict[str, Any]:
    target_list = target_options(targets)
    result: dict[str, Any] = {"attackers": attackers, "targets": targets}
    for phase in (Phase.SHOOTING, Phase.FIGHT):
        sides = attack_sides(attackers, phase)
        times: list[float] = []
        matchups = None
        for _ in range(RUNS):
            start = time.perf_counter()
            matchups = compute_matchups(sides, target_list, engine=UnitEngine())
            times.append(time.perf_counter() - start)
        assert matchups is not None
        wall = statistics.median(times)
        pairs = attackers * targets
        engine = UnitEngine()
        rng = np.random.default_rng(5)
        sample = [(int(rng.integers(attackers)), int(rng.integers(targets))) for _ in range(SAMPLE_PLAIN)]
        plain_targets = [target_list[t] for _, t in sample]
        for _, t in sample:  # warm the shared rule caches so the timing is the chain only
            engine.job(attack_signature(sides[0]), target_list[t])
        start = time.perf_counter()
        plain = [plain_pair(engine, sides[a], tg) for (a, _), tg in zip(sample, plain_targets, strict=True)]
        plain_s = (time.perf_counter() - start) / SAMPLE_PLAIN
        index = {(a, t): i for i, (a, t) in enumerate(matchups.pairs.tolist())}
        diffs = [
            float(np.max(np.abs(np.asarray(p) - matchups.job_slain_dist[int(matchups.job[index[pair]])])))
            for pair, p in zip(sample, plain, strict=True)
            if not any(
                c.shape[1] > 1 for c in engine.job(attack_signature(sides[pair[0]]), target_list[pair[1]]).counts
            )
            and not target_list[pair[1]].attached
        ]
        result[phase.value] = {
            "pairs": pairs,
            "distinct_jobs": matchups.distinct,
            "median_s": round(wall, 3),
            "runs_s": [round(t, 3) for t in times],
            "pairs_per_s": round(pairs / wall),
            "distinct_per_s": round(matchups.distinct / wall),
            "plain_python_s_per_pair": round(plain_s, 6),
            "speedup_vs_plain_per_pair": round(plain_s * pairs / wall, 1),
            "speedup_vs_plain_per_distinct_job": round(plain_s * matchups.distinct / wall, 1),
            "max_abs_diff_vs_plain": max(diffs, default=float("nan")),
        }
    ws = time_warhammer_stats(attack_sides(50, Phase.SHOOTING), target_list)
    result["warhammer_stats_s_per_weapon_run"] = round(ws, 6)
    result["speedup_vs_warhammer_stats"] = round(ws * result["shooting"]["pairs_per_s"], 1)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


if __name__ == "__main__":
    import json

    sizes = [int(x) for x in sys.argv[1:3]] or [400, 400]
    print(json.dumps(run_units_bench(*sizes), indent=2))
