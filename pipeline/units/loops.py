"""The engine's innermost loops compiled (Numba): the same operations as the NumPy code they replace, per
element and in the same order, without a NumPy call per operation.

A chain chunk holds ≈ 2,000 cells on the corpus, so each of NumPy's 7–8 calls per wound spent about as long
starting as computing. No fused multiply-add and no reassociation (Numba's default: no fastmath), so the
results are NumPy's to the bit (tests/units/test_loops.py); docs/units.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from pipeline.units.layout import BoolArray, FloatArray, IntArray

ABSORBED = 1e-17
"""Below this mass outside absorbing states a vector stops stepping (further wounds change nothing)."""

CHECK_EVERY = 4
"""Wounds between two checks for vectors with no mass left to move."""

ENABLED = True
"""Run these loops compiled; False: the NumPy code they replace (the reference, and `dataslate matchup`)."""

_COMPILED: dict[str, Any] = {}


def _wounds(
    x: FloatArray,
    spare: FloatArray,
    acc: FloatArray,
    coefficients: FloatArray,
    stay: FloatArray,
    body: FloatArray,
    leader: FloatArray,
    stride: int,
    live: BoolArray,
    done: BoolArray,
    newly: BoolArray,
    n: int,
    reach: int,
) -> tuple[int, int, bool, bool]:
    """Wounds n, n + 1, … of a chunk (x [S, Q, B], acc [S, C, Q, B]); stops after a check that finds vectors
    with no mass left to move (`newly`), for the caller to lump them. Returns (n, reach, swapped, stopped):
    `swapped` when x's values are in `spare`'s buffer."""
    size, pending, batch = x.shape
    counts, channels = coefficients.shape[0], coefficients.shape[1]
    moves, two_lines = body.shape[0], leader.shape[0] > 0
    swapped = False
    total = np.empty(batch)
    while n < counts:
        if n:
            reach = min(size, reach + moves * stride)
            for s in range(reach):
                for q in range(pending):
                    row = spare[s, q]
                    for b in range(batch):
                        row[b] = x[s, q, b] * stay[s, b]
                    for j in range(1, moves + 1):
                        shift = j * stride
                        if shift < reach and s >= shift:
                            for b in range(batch):
                                row[b] += x[s - shift, q, b] * body[j - 1, s - shift, b]
                        if two_lines and j < reach and s >= j:
                            for b in range(batch):
                                row[b] += x[s - j, q, b] * leader[j - 1, s - j, b]
            x, spare = spare, x
            swapped = not swapped
        for s in range(reach):
            for c in range(channels):
                for q in range(pending):
                    for b in range(batch):
                        acc[s, c, q, b] += coefficients[n, c, b] * x[s, q, b]
        if n % CHECK_EVERY == 0 and n + 1 < counts:
            found = False
            for q in range(pending):
                total[:] = 0.0
                for s in range(reach):
                    for b in range(batch):
                        if live[s, b]:
                            total[b] += x[s, q, b]
                for b in range(batch):
                    newly[q, b] = total[b] < ABSORBED and not done[q, b]
                    found = found or newly[q, b]
            if found:
                return n, reach, swapped, True
        n += 1
    return n, reach, swapped, False


def _gathered_row_sums(weights: FloatArray, table: FloatArray, rows: IntArray, total: FloatArray) -> None:
    """total[b, g] = sum over s of weights[b, s] * table[rows[b], s, g], added s = 0, 1, … (the first term
    is the product itself, as NumPy's running sum starts)."""
    batch, size = weights.shape
    groups = table.shape[2]
    for b in range(batch):
        r = rows[b]
        for g in range(groups):
            value = weights[b, 0] * table[r, 0, g]
            for s in range(1, size):
                value += weights[b, s] * table[r, s, g]
            total[b, g] = value


def _chain_kernel(
    table: FloatArray,
    tails: FloatArray,
    band: IntArray,
    weapon: IntArray,
    defence: IntArray,
    precise: BoolArray,
    groups: IntArray,
    remaining: IntArray,
    on_leader: BoolArray,
    precision_groups: IntArray,
    precision_remaining: IntArray,
    precision_on_leader: BoolArray,
    two_lines: bool,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`solve.capped_kernel` of rows (weapon, defence, allocation: 1 for Precision) written straight in the
    batch-last layout `run_step` reads: stay [S, B], moves along the line and the Leader line [J - 1, S, B]
    (an empty Leader array for one line). `groups`, `remaining`, `on_leader`: [D, S] of the normal allocation,
    `precision_*` of Precision's (rows with `precise`). The values are copies of the loss table and its
    tails, so any band at least as wide as the rows' largest capped loss gives the same kernel (the moves
    beyond are zeros)."""
    batch, size = len(weapon), groups.shape[1]
    top, widest = 1, 0
    for b in range(batch):
        top = max(top, band[weapon[b]])
        for s in range(size):
            r = precision_remaining[defence[b], s] if precise[b] else remaining[defence[b], s]
            widest = max(widest, r)
    width = min(top, max(1, widest + 1))
    stay = np.zeros((size, batch))
    body = np.zeros((width - 1, size, batch))
    leader = np.zeros((width - 1 if two_lines else 0, size, batch))
    for s in range(size):
        for b in range(batch):
            w, d = weapon[b], defence[b]
            if precise[b]:
                g, r, lead = precision_groups[d, s], precision_remaining[d, s], precision_on_leader[d, s]
            else:
                g, r, lead = groups[d, s], remaining[d, s], on_leader[d, s]
            lead = two_lines and lead
            for j in range(width):
                if j < r:
                    value = table[w, g, j]
                elif j == r:
                    value = tails[w, g, r]
                else:
                    value = 0.0
                if j == 0:
                    stay[s, b] = value
                elif lead:
                    leader[j - 1, s, b] = value
                else:
                    body[j - 1, s, b] = value
    return stay, body, leader


def compiled(name: str) -> Any:
    """The loop `name` of this module compiled (once per process; Numba's cache keeps the machine code between
    runs, next to this file, else in the user's cache folder; with neither writable, compiled per process)."""
    if name not in _COMPILED:
        import numba

        try:
            _COMPILED[name] = numba.njit(cache=True, nogil=True)(globals()[name])
        except RuntimeError:  # no writable cache location
            _COMPILED[name] = numba.njit(nogil=True)(globals()[name])
    return _COMPILED[name]


@contextmanager
def numpy_only() -> Iterator[None]:
    """The NumPy code inside this block: for one pair (`dataslate matchup`), importing Numba and loading its
    machine code (≈ 0.4 s) costs more than the loops save."""
    global ENABLED
    before, ENABLED = ENABLED, False
    try:
        yield
    finally:
        ENABLED = before
