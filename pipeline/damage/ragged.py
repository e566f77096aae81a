"""Many small 2-D tables of different shapes in one flat array, and the dot products between them.

Wound-count pmfs (`wound_counts.py`) and loss tables (`unit_tables.py`) are
[rows, cols] arrays of a different shape per key; holding them flat (row-major,
one offset per key) lets `pair_dots` take the products of millions of pairs
with a few numpy gathers instead of a Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Elements gathered at once by `pair_dots` (bounds its memory: ~40 bytes each).
DOT_CHUNK = 1 << 22


@dataclass(frozen=True)
class Ragged:
    """Table k is `values[offsets[k] : offsets[k] + rows[k] * cols[k]]`, row-major."""

    values: FloatArray
    offsets: IntArray
    rows: IntArray
    cols: IntArray

    @property
    def count(self) -> int:
        return len(self.offsets)

    def table(self, key: int) -> FloatArray:
        start, rows, cols = int(self.offsets[key]), int(self.rows[key]), int(self.cols[key])
        return self.values[start : start + rows * cols].reshape(rows, cols)


def from_padded(padded: FloatArray, rows: IntArray, cols: IntArray) -> Ragged:
    """[K, R, C] arrays -> the top-left rows[k] x cols[k] block of each, flat."""
    r = np.arange(padded.shape[1])[None, :, None] < rows[:, None, None]
    c = np.arange(padded.shape[2])[None, None, :] < cols[:, None, None]
    sizes = rows * cols
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return Ragged(padded[r & c], offsets, rows.astype(np.int64), cols.astype(np.int64))


def concat(parts: list[tuple[IntArray, Ragged]], count: int) -> Ragged:
    """Ragged parts holding keys `ids` (each part) -> one Ragged indexed by key 0..count-1."""
    values = np.concatenate([p.values for _, p in parts]) if parts else np.zeros(0)
    offsets, rows, cols = np.zeros(count, np.int64), np.zeros(count, np.int64), np.zeros(count, np.int64)
    base = 0
    for ids, part in parts:
        offsets[ids], rows[ids], cols[ids] = part.offsets + base, part.rows, part.cols
        base += len(part.values)
    return Ragged(values, offsets, rows, cols)


def pair_dots(left: Ragged, rights: tuple[Ragged, ...], left_keys: IntArray, right_keys: IntArray) -> list[FloatArray]:
    """For each pair i and each right table set: sum over left's cells (n, c) of left[n, c] * right[n, c].

    Every right table must cover the left table of its pair (rows and cols at least as large), and the
    right table sets share one layout (offsets, rows, cols). Pairs are taken in groups of one left shape,
    so each group is a dense [pairs, rows, cols] gather.
    """
    results = [np.zeros(len(left_keys)) for _ in rights]
    rows, cols = left.rows[left_keys], left.cols[left_keys]
    shape = rows * (int(cols.max(initial=0)) + 1) + cols
    order = np.argsort(shape, kind="stable")
    bounds = np.flatnonzero(np.diff(shape[order])) + 1
    for group in np.split(order, bounds) if len(order) else []:
        r, c = int(rows[group[0]]), int(cols[group[0]])
        step = max(1, DOT_CHUNK // (r * c))
        for start in range(0, len(group), step):
            members = group[start : start + step]
            for out, values in zip(
                results, _dense_dots(left, rights, left_keys[members], right_keys[members], r, c), strict=True
            ):
                out[members] = values
    return results


def _dense_dots(
    left: Ragged, rights: tuple[Ragged, ...], lk: IntArray, rk: IntArray, rows: int, cols: int
) -> list[FloatArray]:
    """Dots of pairs whose left tables are all rows x cols."""
    weights = left.values[left.offsets[lk][:, None] + np.arange(rows * cols)[None, :]]
    n, c = np.arange(rows)[None, :, None], np.arange(cols)[None, None, :]
    layout = rights[0]
    index = (layout.offsets[rk][:, None, None] + n * layout.cols[rk][:, None, None] + c).reshape(len(lk), -1)
    return [np.einsum("pk,pk->p", weights, np.take(right.values, index)) for right in rights]
