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

from pipeline.units import loops
from pipeline.units.layout import FloatArray, IntArray, StateLayout
from pipeline.units.model import AttackSide, TargetUnit

QUANTILE_SLACK = 1e-12
"""Rounding slack when comparing a cumulative probability with a quantile level."""


@dataclass(frozen=True, slots=True)
class Summary:
    """A batch of distinct pairs' exact results (row b: pair b of the batch)."""

    slain_dist: FloatArray  # [B, width] P(k slain), zero beyond the target's models
    models: IntArray  # [B] models of the target (the row's meaningful length is models + 1)
    slain_by_group: FloatArray  # [B, groups] expected models slain per group
    wounds_lost: FloatArray
    stats: FloatArray  # [B, 6] expected slain, P(any), P(wipe), p10, p50, p90


def summarise_states(
    final: FloatArray,
    slain: IntArray,
    by_state: FloatArray,
    wounds: FloatArray,
    models: IntArray,
    view: IntArray | None = None,
) -> Summary:
    """Final state distributions [B, S] -> Summary, given per row the slain count [B, S], the slain per group
    [B, S, G] and the wounds lost ([S], or per row [B, S]) of each state, and the models [B]. With `view` [B],
    `by_state` [V, S', G] and `wounds` [V, S'] (S' >= S) are tables read at each row's view. Every sum runs
    over one row's own states in order (`row_sums`), so a row's numbers never depend on the other rows of its
    batch, their count, the batch's width or its number of groups."""
    batch = final.shape[0]
    width = int(slain.max(initial=0)) + 1
    flat = (np.arange(batch)[:, None] * width + slain).ravel()
    counts = np.bincount(flat, weights=final.ravel(), minlength=batch * width)
    dist = np.asarray(counts, dtype=np.float64).reshape(batch, width)
    rows = np.arange(batch) if view is None else view
    by_group = gathered_row_sums(final, by_state, rows)
    cdf = np.cumsum(dist, axis=1)
    stats = np.stack(
        [
            weighted_rows(dist, np.arange(width, dtype=np.float64)),
            1.0 - dist[:, 0],
            dist[np.arange(batch), models],
            *[np.argmax(cdf >= q - QUANTILE_SLACK, axis=1).astype(np.float64) for q in (0.1, 0.5, 0.9)],
        ],
        axis=1,
    )
    lost = gathered_row_sums(final, wounds, rows) if wounds.ndim == 2 else weighted_rows(final, wounds)
    return Summary(dist, models, by_group, lost, stats)


def weighted_rows(rows: FloatArray, weights: FloatArray) -> FloatArray:
    """rows @ weights, each row summed on its own, in column order (`row_sums`): a row's result never depends
    on its neighbours, nor on trailing zero columns (a BLAS product's rounding depends on the row's position
    in the block, einsum's on the row's length and the operands' strides)."""
    return row_sums(rows * weights)


def row_sums(products: FloatArray) -> FloatArray:
    """Sum over axis 1 ([B, S] -> [B], [B, S, G] -> [B, G]) as a running sum s = 0, 1, ... (`add.accumulate`
    is sequential by definition, whatever the shape or memory layout; `sum` and einsum pair or vectorise
    terms by the row's length and strides, so padding a row or adding a group would change its last bits).
    A zero term adds nothing, so padded rows sum to the same bits."""
    if products.shape[1] == 0:
        return np.zeros((products.shape[0], *products.shape[2:]))
    total: FloatArray = np.add.accumulate(products, axis=1)[:, -1]
    return total


def gathered_row_sums(weights: FloatArray, table: FloatArray, rows: IntArray) -> FloatArray:
    """sum over s of weights[b, s] * table[rows[b], s] ([B, S] and [V, S', ...] -> [B, ...]), added s = 0, 1,
    ... exactly as `row_sums` of the products, without building them or the gathered table (the summaries'
    largest arrays)."""
    batch, size = weights.shape
    if size == 0:
        return np.zeros((batch, *table.shape[2:]))
    if loops.ENABLED:
        summed: FloatArray = np.empty((batch, *table.shape[2:]))
        loops.compiled("_gathered_row_sums")(
            np.ascontiguousarray(weights),
            np.ascontiguousarray(table).reshape(*table.shape[:2], -1),
            np.ascontiguousarray(rows, dtype=np.int64),
            summed.reshape(batch, -1),
        )
        return summed
    column = (batch,) + (1,) * (table.ndim - 2)  # a row's weight against each of its table row's entries
    total: FloatArray = weights[:, 0].reshape(column) * table[rows, 0]
    for s in range(1, size):
        total += weights[:, s].reshape(column) * table[rows, s]
    return total


def summarise(final: FloatArray, layouts: Sequence[StateLayout], targets: Sequence[TargetUnit]) -> Summary:
    """Final state distributions [B, S] -> the batch's Summary."""
    batch, size = final.shape
    slain = np.stack([lay.slain for lay in layouts])
    models = np.array([t.models for t in targets], dtype=np.int64)
    n_groups = max(len(t.all_groups) for t in targets)
    by_state = np.zeros((batch, size, n_groups))
    for b, lay in enumerate(layouts):
        by_state[b, :, : lay.slain_by_group.shape[1]] = lay.slain_by_group
    return summarise_states(final, slain, by_state, layouts[0].wounds.astype(np.float64), models)


def merge(parts: Sequence[tuple[IntArray | list[int], Summary]], n: int) -> Summary:
    """Batch summaries with the job indices of their rows -> one Summary in job order."""
    width = max([p.slain_dist.shape[1] for _, p in parts] or [1])
    groups = max([p.slain_by_group.shape[1] for _, p in parts] or [1])
    dist, models = np.zeros((n, width)), np.zeros(n, dtype=np.int64)
    by_group, wounds, stats = np.zeros((n, groups)), np.zeros(n), np.zeros((n, 6))
    for rows, part in parts:
        dist[rows, : part.slain_dist.shape[1]] = part.slain_dist
        models[rows] = part.models
        by_group[rows, : part.slain_by_group.shape[1]] = part.slain_by_group
        wounds[rows], stats[rows] = part.wounds_lost, part.stats
    return Summary(dist, models, by_group, wounds, stats)


def quantile(dist: FloatArray, q: float) -> int:
    return int(np.argmax(np.cumsum(dist) >= q - QUANTILE_SLACK))


@dataclass(frozen=True, slots=True)
class Matchups:
    """Results per requested (attacker, target) pair, in request order; distributions per distinct job."""

    pairs: IntArray  # [P, 2] attacker index, target index
    job: IntArray  # [P] the distinct computation each pair used
    job_dist: FloatArray  # [jobs, width] P(k slain) per distinct job, zero-padded; no columns if not asked for
    job_models: IntArray  # [jobs] models of each job's target
    expected_slain: FloatArray
    p_any: FloatArray
    p_wipe: FloatArray
    slain_p10: IntArray
    slain_p50: IntArray
    slain_p90: IntArray
    wounds_lost: FloatArray
    points_destroyed: FloatArray
    points_destroyed_per_100: FloatArray
    job_slain_by_group: FloatArray  # [jobs, groups] expected models slain per group: the basis of the points

    @property
    def distinct(self) -> int:
        return len(self.job_models)

    @property
    def job_slain_dist(self) -> list[FloatArray]:
        """P(k models slain), k = 0..N, per distinct job (views on `job_dist`)."""
        return [self.job_dist[j, : m + 1] for j, m in enumerate(self.job_models.tolist())]

    @property
    def slain_dist(self) -> list[FloatArray]:
        """P(k models slain), k = 0..N, per pair (a view on the distinct jobs' arrays)."""
        models = self.job_models.tolist()
        return [self.job_dist[j, : models[j] + 1] for j in self.job.tolist()]


def assemble(
    summary: Summary,
    pair_jobs: IntArray,
    pairs: IntArray,
    attackers: Sequence[AttackSide],
    targets: Sequence[TargetUnit],
) -> Matchups:
    """The jobs' summary -> per-pair columns; points from each pair's own costs (column by column: a pair's
    numbers never depend on the others)."""
    n_groups = max([len(t.all_groups) for t in targets] or [1])
    costs = np.zeros((n_groups, max(1, len(targets))))
    for t, unit in enumerate(targets):
        costs[: len(unit.all_groups), t] = [g.points for g in unit.all_groups]
    stats = np.ascontiguousarray(summary.stats.T)
    by_group = np.ascontiguousarray(summary.slain_by_group.T)
    target = pairs[:, 1]
    groups = [g for g in range(min(n_groups, len(by_group))) if costs[g].any()]
    points = points_destroyed(
        [by_group[g][pair_jobs] for g in groups], [costs[g][target] for g in groups], len(pair_jobs)
    )
    attacker_points = np.array([a.points for a in attackers] or [0.0])
    per_100 = per_100_points(points, attacker_points[pairs[:, 0]])
    c, q = [stats[i][pair_jobs] for i in range(3)], [stats[i].astype(np.int64)[pair_jobs] for i in range(3, 6)]
    return Matchups(
        pairs, pair_jobs, summary.slain_dist, summary.models, c[0], c[1], c[2], q[0], q[1], q[2],
        summary.wounds_lost[pair_jobs], points, per_100, summary.slain_by_group,
    )  # fmt: skip


def points_destroyed(slain: Sequence[FloatArray], costs: Sequence[FloatArray], pairs: int) -> FloatArray:
    """Per pair, the sum over model groups (in group order) of expected models slain times the cost of one
    model. One formula for the engine and for files re-costed from the cache (`matchups/recost.py`): a group
    costing nothing adds +0.0, which changes no bit, so either may list more groups than the other."""
    points = np.zeros(pairs)
    for slain_g, cost_g in zip(slain, costs, strict=True):
        points += slain_g * cost_g
    return points


def per_100_points(points: FloatArray, attacker_cost: FloatArray) -> FloatArray:
    """Points destroyed per 100 points of the attacker (NaN when the attacker costs nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_100: FloatArray = np.where(
            attacker_cost > 0, points * 100.0 / np.where(attacker_cost > 0, attacker_cost, 1.0), np.nan
        )
    return per_100
