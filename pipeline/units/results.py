"""From final state distributions to the published numbers.

Per distinct pair (`Summary`): P(k models slain) for k = 0..N, the expected
models slain of each model group (points are applied per pair from these, so
targets that differ only in cost share one computation) and the expected
wounds lost. Per pair (`Matchups`): the summary numbers of DAMAGE_RULES.md.
Percentiles are the smallest k with P(slain <= k) >= q (lower quantiles).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.units.layout import FloatArray, IntArray, StateLayout
from pipeline.units.model import AttackSide, TargetUnit

QUANTILE_SLACK = 1e-12
"""Rounding slack when comparing a cumulative probability with a quantile level."""


@dataclass(frozen=True, slots=True)
class Summary:
    """One distinct pair's exact results."""

    slain_dist: FloatArray
    slain_by_group: FloatArray
    wounds_lost: float


def summarise(final: FloatArray, layouts: Sequence[StateLayout], targets: Sequence[TargetUnit]) -> list[Summary]:
    """Final state distributions [B, S] -> one Summary per pair."""
    batch, size = final.shape
    slain = np.stack([lay.slain for lay in layouts])
    width = int(slain.max()) + 1
    flat = (np.arange(batch)[:, None] * width + slain).ravel()
    counts = np.bincount(flat, weights=final.ravel(), minlength=batch * width)
    dist = np.asarray(counts, dtype=np.float64).reshape(batch, width)
    wounds = final @ layouts[0].wounds.astype(np.float64) if size else np.zeros(batch)
    out = []
    for b, (lay, target) in enumerate(zip(layouts, targets, strict=True)):
        by_group = final[b] @ lay.slain_by_group
        out.append(Summary(dist[b, : target.models + 1].copy(), by_group, float(wounds[b])))
    return out


def quantile(dist: FloatArray, q: float) -> int:
    return int(np.argmax(np.cumsum(dist) >= q - QUANTILE_SLACK))


def _stats(dist: FloatArray) -> tuple[float, float, float, int, int, int]:
    """Expected slain, P(any), P(wipe), 10th/50th/90th percentiles."""
    mean = float(np.arange(len(dist)) @ dist)
    return mean, 1.0 - float(dist[0]), float(dist[-1]), quantile(dist, 0.1), quantile(dist, 0.5), quantile(dist, 0.9)


@dataclass(frozen=True, slots=True)
class Matchups:
    """Results per requested (attacker, target) pair, in request order."""

    pairs: IntArray  # [P, 2] attacker index, target index
    job: IntArray  # distinct computation each pair used
    distinct: int
    slain_dist: list[FloatArray]
    expected_slain: FloatArray
    p_any: FloatArray
    p_wipe: FloatArray
    slain_p10: IntArray
    slain_p50: IntArray
    slain_p90: IntArray
    wounds_lost: FloatArray
    points_destroyed: FloatArray
    points_destroyed_per_100: FloatArray


def assemble(
    summaries: Sequence[Summary],
    pair_jobs: IntArray,
    pairs: Sequence[tuple[int, int]],
    attackers: Sequence[AttackSide],
    targets: Sequence[TargetUnit],
    distinct: int,
) -> Matchups:
    """Summaries of distinct pairs -> per-pair columns (points from each pair's own costs)."""
    n = len(pairs)
    expected, p_any, p_wipe, wounds, points, per_100 = (np.zeros(n) for _ in range(6))
    quantiles = np.zeros((n, 3), dtype=np.int64)
    dists: list[FloatArray] = []
    stats: dict[int, tuple[float, float, float, int, int, int]] = {}
    for p, ((a, t), j) in enumerate(zip(pairs, pair_jobs.tolist(), strict=True)):
        s = summaries[j]
        if j not in stats:
            stats[j] = _stats(s.slain_dist)
        expected[p], p_any[p], p_wipe[p], *q = stats[j]
        quantiles[p] = q
        wounds[p] = s.wounds_lost
        costs = np.array([g.points for g in targets[t].all_groups])
        points[p] = float(s.slain_by_group @ costs)
        cost = attackers[a].points
        per_100[p] = points[p] * 100.0 / cost if cost > 0 else np.nan
        dists.append(s.slain_dist)
    return Matchups(
        np.asarray(pairs, dtype=np.int64).reshape(n, 2), pair_jobs, distinct, dists, expected, p_any, p_wipe,
        quantiles[:, 0], quantiles[:, 1], quantiles[:, 2], wounds, points, per_100,
    )  # fmt: skip
