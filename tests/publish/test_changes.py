"""Rows changed between two versions of a table (`pipeline/publish/changes.py`)."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.publish.changes import table_changes

KEY = ("unit_id",)


def _frame(wounds: float, dist: list[float], line: int = 1) -> pl.DataFrame:
    return pl.DataFrame({"unit_id": ["u"], "wounds_lost": [wounds], "slain_dist": [dist], "line": [line]})


@pytest.mark.parametrize(
    ("wounds", "dist", "changed"),
    [
        (3.7777777777777812, [0.25, 0.75], []),  # the same
        (3.7777777777777817, [0.25, 0.75], []),  # the last bits of another batch (seen unit_vs_reference)
        (3.7777777777777812, [0.25000000000000006, 0.75], []),
        (3.7777787, [0.25, 0.75], ["u"]),  # a change in the 7th digit is a change
        (3.7777777777777812, [0.2501, 0.7499], ["u"]),
    ],
)
def test_floats_compare_to_nine_significant_digits(wounds: float, dist: list[float], changed: list[str]) -> None:
    assert table_changes(_frame(3.7777777777777812, [0.25, 0.75]), _frame(wounds, dist, line=9), KEY).changed == changed
