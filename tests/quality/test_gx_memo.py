"""The memo of GX's per-expectation bookkeeping: on for the installed GX, undone on exit, and every suite's
outcomes (successes, counts, samples, offending rows, errors) the same with it as without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pipeline import config
from pipeline.quality.batches import existing_tables, fetch_batch
from pipeline.quality.gx_memo import content_key, memo_supported, memoised_gx
from pipeline.quality.gx_runner import GxRunner, import_gx
from pipeline.quality.report import ExpectationOutcome
from pipeline.quality.suites import ExpectationSpec, SuiteSpec, load_suites
from pipeline.store.load import open_store

SUITES = load_suites()


@pytest.fixture(scope="module")
def runners() -> tuple[GxRunner, GxRunner]:
    """(without the memo, with it)."""
    return GxRunner(memoise=False), GxRunner(memoise=True)


@pytest.fixture(scope="module")
def broken_batches(broken_gate: tuple[str, Path]) -> Iterator[dict[str, tuple[pd.DataFrame, tuple[str, ...]]]]:
    """table -> (frame, key) of the broken release, as the stage fetches them."""
    with open_store(broken_gate[1] / config.DUCKDB_FILENAME) as con:
        present = existing_tables(con)
        batches = {s.table: fetch_batch(con, s, present) for s in SUITES}
    yield {table: (b.frame, b.key) for table, b in batches.items()}


def _expectation() -> object:
    from great_expectations.expectations.core.expect_column_values_to_not_be_null import (
        ExpectColumnValuesToNotBeNull,
    )

    return ExpectColumnValuesToNotBeNull(column="a")


def test_the_memo_is_on_for_the_installed_gx() -> None:
    gx = import_gx()
    assert memo_supported(gx.__version__), f"check gx_memo against GX {gx.__version__}, then add it to VERIFIED_GX"
    assert not memo_supported("1.25.0") and not memo_supported("2.0.0")


def test_the_memo_computes_once_per_object_inside_the_block_only() -> None:
    expectation = _expectation()
    with memoised_gx() as memoised:
        inside = expectation.configuration  # type: ignore[attr-defined]
        assert memoised and expectation.configuration is inside  # type: ignore[attr-defined]
        assert inside.to_domain_obj() is inside.to_domain_obj()
    after = expectation.configuration  # type: ignore[attr-defined]
    assert after is not expectation.configuration and after == inside  # type: ignore[attr-defined]
    assert after.to_domain_obj() is not after.to_domain_obj()


def _patched() -> tuple[object, ...]:
    from great_expectations.core.id_dict import IDDict
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    return (
        Expectation.__dict__["configuration"],
        ExpectationConfiguration.__dict__["to_domain_obj"],
        IDDict.__dict__["to_id"],
    )


def test_the_memo_is_undone_when_the_block_raises() -> None:
    before = _patched()
    with pytest.raises(RuntimeError), memoised_gx():
        assert _patched() != before
        raise RuntimeError("inside")
    assert _patched() == before


#: Metric kwargs as GX builds them, and values that only look alike (1, 1.0, True; a tuple and a list).
_KWARGS: list[dict[str, Any]] = [
    {"column": "weapon_id", "batch_id": "b-1", "row_condition": 'kind=="melee"', "condition_parser": "pandas"},
    {"column": "weapon_id", "batch_id": "b-1", "row_condition": 'kind=="ranged"', "condition_parser": "pandas"},
    {"value_set": ["a", "b"], "parse_strings_as_datetimes": False, "result_format": {"result_format": "SUMMARY"}},
    {"value_set": ("a", "b"), "parse_strings_as_datetimes": False, "result_format": {"result_format": "SUMMARY"}},
    {"min_value": 1, "max_value": None, "strict_min": False},
    {"min_value": 1.0, "max_value": None, "strict_min": False},
    {"min_value": True, "max_value": None, "strict_min": False},
    {"mostly": 0.95, "column": "a"},
    {"column": "a"},
    {},
]


def test_every_metric_id_is_the_same_with_the_memo() -> None:
    from great_expectations.core.id_dict import IDDict

    plain = [IDDict(k).to_id() for k in _KWARGS]
    with memoised_gx():
        memoised = [IDDict(k).to_id() for k in _KWARGS] + [IDDict(k).to_id() for k in reversed(_KWARGS)]
    assert memoised == plain + plain[::-1]
    assert len(set(plain)) == len(plain) - 1  # a tuple and a list give GX's own ids alike; 1, 1.0 and True do not


def test_content_keys_tell_types_apart_and_leave_other_values_to_gx() -> None:
    assert len({content_key(v) for v in (1, 1.0, True, "1", [1], (1,))}) == 6
    assert content_key({"a": [1, {"b": None}]}) == content_key({"a": [1, {"b": None}]})
    assert content_key({"a": pd.Series([1])}) is None and content_key([object()]) is None


@pytest.mark.parametrize("suite", SUITES, ids=lambda s: s.table)
def test_every_suite_gives_the_same_outcomes_with_the_memo(
    suite: SuiteSpec,
    runners: tuple[GxRunner, GxRunner],
    broken_batches: dict[str, tuple[pd.DataFrame, tuple[str, ...]]],
) -> None:
    frame, key = broken_batches[suite.table]
    plain, memoised = (runner.validate(suite, frame, key) for runner in runners)
    assert memoised == plain


def test_the_broken_release_gives_the_memo_failures_with_rows_to_compare(
    runners: tuple[GxRunner, GxRunner], broken_batches: dict[str, tuple[pd.DataFrame, tuple[str, ...]]]
) -> None:
    """The comparison above is not of passes only: failures with samples and offending rows are compared."""
    suite = next(s for s in SUITES if s.table == "weapons")
    outcomes = runners[1].validate(suite, *broken_batches["weapons"])
    failed = [o for o in outcomes if not o.success]
    assert len(failed) >= 3 and all(o.unexpected_rows and o.unexpected_sample for o in failed)


def _errors(runner: GxRunner) -> list[ExpectationOutcome]:
    expectations = (
        ExpectationSpec("expect_column_values_to_be_null", {"column": "nope"}, "warning", ""),
        ExpectationSpec("expect_column_values_to_be_in_set", {"column": "k", "value_set": ["a"]}, "critical", ""),
    )
    return runner.validate(SuiteSpec("u", "", {}, expectations), pd.DataFrame({"k": ["a", "b"]}), ("k",))


def test_errors_are_the_same_with_the_memo(runners: tuple[GxRunner, GxRunner]) -> None:
    plain, memoised = (_errors(runner) for runner in runners)
    assert memoised == plain
    assert memoised[0].error is not None and '"nope"' in memoised[0].error
    assert (memoised[1].success, memoised[1].unexpected_rows) == (False, [{"k": "b"}])
