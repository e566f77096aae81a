"""The report's plain values and its deterministic summary file."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.quality.report import (
    ExpectationOutcome,
    QualityReport,
    TableReport,
    distinct_sample,
    plain_value,
)


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        (np.int32(24), 24),
        (np.float64(3.0), 3),
        (0.25, 0.25),
        (math.nan, None),
        (pd.NA, None),
        (np.False_, False),
        ({"k": np.int64(1), "v": [np.float64(2.5)]}, {"k": 1, "v": [2.5]}),
        (np.array(["A", "B"]), ["A", "B"]),
        ("D6", "D6"),
    ],
)
def test_plain_value(value: object, plain: object) -> None:
    assert plain_value(value) == plain


def test_distinct_sample_keeps_first_occurrences_in_order() -> None:
    values = ["b", "b", "a", {"k": 1}, {"k": 1}, "c"]
    assert distinct_sample(values, size=3) == ["b", "a", {"k": 1}]


def _report() -> QualityReport:
    failed = ExpectationOutcome(
        expectation="expect_column_values_to_be_between(ap in [-6, 0])",
        severity="critical",
        success=False,
        element_count=10,
        unexpected_count=1,
        unexpected_sample=[1],
        unexpected_rows=[{"weapon_id": "w1", "ap": 1}],
    )
    warned = ExpectationOutcome(
        expectation="expect_column_values_to_be_null(without_points)",
        severity="warning",
        success=False,
        element_count=2,
        unexpected_count=1,
        unexpected_sample=["d1"],
    )
    passed = ExpectationOutcome(
        expectation="expect_table_row_count_to_be_between(>= 1)",
        severity="critical",
        success=True,
        observed_value=3,
    )
    return QualityReport(
        tables=[
            TableReport("weapons", "ok", 10, (failed, passed)),
            TableReport("datasheets", "ok", 2, (warned,)),
        ]
    )


def test_counts_and_gate() -> None:
    report = _report()
    summary = report.to_dict()
    assert (
        summary["passed"],
        summary["expectations"],
        summary["critical_failures"],
        summary["warnings"],
    ) == (False, 3, 1, 1)
    assert report.message() == (
        "1 critical quality gate(s) failed: weapons: expect_column_values_to_be_between(ap in [-6, 0]) "
        "failed on 1 of 10 rows, e.g. [{'weapon_id': 'w1', 'ap': 1}]"
    )
    manifest = report.manifest_summary()
    assert [f.expectation for f in manifest.failed] == [
        "expect_column_values_to_be_between(ap in [-6, 0])",
        "expect_column_values_to_be_null(without_points)",
    ]
    assert manifest.as_dict() == {
        "passed": False,
        "expectations": 3,
        "critical_failures": 1,
        "warnings": 1,
        "failed": [
            {
                "table": "weapons",
                "expectation": "expect_column_values_to_be_between(ap in [-6, 0])",
                "severity": "critical",
                "unexpected_count": 1,
            },
            {
                "table": "datasheets",
                "expectation": "expect_column_values_to_be_null(without_points)",
                "severity": "warning",
                "unexpected_count": 1,
            },
        ],
    }


def test_summary_file_is_byte_identical_across_writes(tmp_path: Path) -> None:
    first = _report().write(tmp_path / "a") / "summary.json"
    second = _report().write(tmp_path / "b") / "summary.json"
    assert first.read_bytes() == second.read_bytes()
    assert b'"unexpected_rows": [\n' in first.read_bytes()
