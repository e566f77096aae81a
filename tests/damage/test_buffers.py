"""`take_rows_columns` gives `values[rows][:, columns]` whichever side it takes first, with or without reused
buffers."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.damage.buffers import Buffers, take_rows_columns

_VALUES = np.arange(40 * 30, dtype=np.float64).reshape(40, 30) / 7


@pytest.mark.parametrize(
    ("rows", "columns"),
    [
        (np.arange(200) % 40, np.array([3, 29, 0])),  # many rows, few columns: columns first
        (np.array([5, 5, 1]), np.arange(90) % 30),  # few rows, many columns: rows first
        (np.array([], dtype=np.int64), np.array([1])),
        (np.array([2]), np.array([], dtype=np.int64)),
    ],
)
@pytest.mark.parametrize("reuse", [False, True])
def test_rows_and_columns_are_taken_as_indexed(rows: np.ndarray, columns: np.ndarray, reuse: bool) -> None:
    buffers: Buffers | None = {} if reuse else None
    expected = _VALUES[rows][:, columns]
    for _ in range(2):  # the second call reuses the first one's buffers
        got = take_rows_columns(_VALUES, rows.astype(np.int64), columns.astype(np.int64), buffers, "slain")
        assert got.shape == expected.shape and np.array_equal(got, expected)
