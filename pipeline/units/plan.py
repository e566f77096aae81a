"""From distinct jobs to prefix-tree batches: each job's weapon steps as integer ids, jobs grouped by shape.

A job is (attack signature, defence signature). Its chain is the list of step
ids (weapon profile, uses) in resolution order: fixed per attack signature, or
for sides with weapon choices resolved once per (signature, what the choice
reads of the defence: wound context and first model group). Jobs are grouped by
(phase, one or two lines, padded states) and cut into batches of whole defences
so that a batch's tree stays within `BATCH_CELLS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.units.layout import IntArray
from pipeline.units.model import Phase, TargetUnit

BATCH_CELLS = 1 << 20
"""Jobs x padded states per batch (bounds the tree's memory, not its speed)."""

_SIZES = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256)


def padded_states(states: int) -> int:
    """Bucketed state count so defences of similar size share a batch."""
    return next((s for s in _SIZES if s >= states), states)


def line_states(target: TargetUnit, two_lines: bool) -> tuple[int, int]:
    """(padded Bodyguard-line states, Leader-line states); one line: (padded states, 1)."""
    if not two_lines:
        return padded_states(target.total_wounds + 1), 1
    body = sum(g.count * g.wounds for g in target.groups) + 1
    return padded_states(body), sum(g.count * g.wounds for g in target.leader) + 1


def chain_table(chains: Sequence[Sequence[int]]) -> IntArray:
    """Step-id rows padded with -1 (at least one column)."""
    width = max([len(c) for c in chains] or [1]) or 1
    table = np.full((len(chains), width), -1, dtype=np.int64)
    for row, chain in enumerate(chains):
        table[row, : len(chain)] = chain
    return table


def pad_columns(table: IntArray, width: int) -> IntArray:
    if table.shape[1] >= width:
        return table
    return np.concatenate([table, np.full((table.shape[0], width - table.shape[1]), -1, dtype=np.int64)], axis=1)


@dataclass(frozen=True, slots=True)
class Batch:
    """Jobs (indices into the distinct jobs) against defences of one shape."""

    phase: Phase
    two_lines: bool
    body: int
    leader: int
    jobs: IntArray
    defences: IntArray  # distinct defence ids of the batch (its local defence order)
    job_defence: IntArray  # per job, index into `defences`
    views: IntArray  # per job, the defence id its summary is for (a smaller member of a family, or the same)


def batches(
    job_defence: IntArray,
    job_phase: IntArray,
    job_two_lines: np.ndarray,
    defences: Sequence[TargetUnit],
    job_view: IntArray | None = None,
) -> Iterator[Batch]:
    """Group jobs by (phase, lines, padded states), then cut at defence boundaries; `job_view`: the defence
    each job's summary is for (default: the one it is solved on)."""
    views = job_defence if job_view is None else job_view
    phases = list(Phase)
    n_def = int(job_defence.max(initial=0)) + 1
    combined = (job_phase * 2 + job_two_lines.astype(np.int64)) * n_def + job_defence
    unique, inverse = np.unique(combined, return_inverse=True)
    shapes: dict[tuple[int, bool, int, int], int] = {}
    per_unique = []
    for u in unique.tolist():
        phase, two, d = u // n_def // 2, bool(u // n_def % 2), u % n_def
        per_unique.append(shapes.setdefault((phase, two, *line_states(defences[d], two)), len(shapes)))
    shape_of = np.array(per_unique, dtype=np.int64)[inverse]
    for (phase, two, body, leader), shape in shapes.items():
        members = np.flatnonzero(shape_of == shape)
        order = members[np.argsort(job_defence[members], kind="stable")]
        cut = max(1, BATCH_CELLS // (body * leader))
        for begin, end in _cuts(job_defence[order], cut):
            jobs = order[begin:end]
            local, job_local = np.unique(job_defence[jobs], return_inverse=True)
            yield Batch(phases[phase], two, body, leader, jobs, local, job_local, views[jobs])


def _cuts(sorted_defence: IntArray, size: int) -> Iterator[tuple[int, int]]:
    """Slices of about `size` jobs that never split one defence's jobs."""
    boundaries = np.flatnonzero(np.diff(sorted_defence)) + 1
    begin = 0
    while begin < len(sorted_defence):
        target = begin + size
        later = boundaries[boundaries >= target]
        end = int(later[0]) if len(later) and target < len(sorted_defence) else len(sorted_defence)
        yield begin, end
        begin = end
