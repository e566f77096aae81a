"""Frame types: list columns built through Arrow hold what Polars' own constructor builds."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from pipeline.frame_types import list_series

CASES: list[tuple[pl.DataType, list[Any]]] = [
    (pl.List(pl.String()), [["blast", "heavy"], [], None, ["anti-infantry 4+"], [None, "x"]]),
    (pl.List(pl.Int64()), [[1, 2], [], None, [3]]),
    (pl.List(pl.Float64()), [[0.5, 1.0], None, [], [2.25]]),
    (pl.List(pl.Boolean()), [[True], [False, None], None]),
    (pl.List(pl.List(pl.String())), [[["a"], []], None]),  # not an Arrow item type here: Polars builds it
    (pl.List(pl.String()), []),
]


@pytest.mark.parametrize(("dtype", "values"), CASES)
def test_a_list_column_holds_what_polars_builds(dtype: pl.DataType, values: list[Any]) -> None:
    built = list_series("column", values, dtype)
    expected = pl.Series("column", values, dtype=dtype)
    assert built.dtype == dtype
    assert built.name == "column"
    assert built.to_list() == expected.to_list() == values
    assert built.null_count() == sum(v is None for v in values)
