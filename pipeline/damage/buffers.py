"""Scratch arrays reused from one row group to the next (fresh memory costs page faults on every use)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: name -> a (capacity rows, width) array; a row group takes its first rows.
Buffers = dict[str, FloatArray]


def reused(buffers: Buffers, name: str, rows: int, width: int) -> FloatArray:
    """The first `rows` rows of `buffers[name]` (a view), the array grown first when it is too small."""
    held = buffers.get(name)
    if held is None or held.shape[0] < rows or held.shape[1] != width:
        held = buffers[name] = np.empty((max(rows, 0 if held is None else held.shape[0]), width))
    return held[:rows]


def take_rows_columns(
    values: FloatArray, rows: npt.NDArray[np.int64], columns: npt.NDArray[np.int64], buffers: Buffers | None, name: str
) -> FloatArray:
    """`values[rows][:, columns]`, into `buffers` when given. Indices are in range by construction, so
    `mode="clip"` changes nothing but lets NumPy write straight into `out` (with the default mode it
    buffers the result and copies it again). The columns are taken first when that copies less: the reference
    profiles' few columns of every weapon row (`damage_vs_reference`) copied each row whole first, ≈ 1 GB."""
    if len(columns) * values.shape[0] < len(rows) * values.shape[1]:
        narrow = np.take(values, columns, axis=1)
        if buffers is None:
            return np.take(narrow, rows, axis=0)
        return np.take(narrow, rows, axis=0, out=reused(buffers, name, len(rows), len(columns)), mode="clip")
    if buffers is None:
        return np.take(np.take(values, rows, axis=0), columns, axis=1)
    picked = np.take(values, rows, axis=0, out=reused(buffers, f"{name}:rows", len(rows), values.shape[1]), mode="clip")
    return np.take(picked, columns, axis=1, out=reused(buffers, name, len(rows), len(columns)), mode="clip")
