"""`as_pandas` gives GX exactly the frame DuckDB's `.df()` gives: dtypes, values, NULL markers; columns of the
NULL type (unread columns) as Arrow nulls, missing and hashed alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline import config
from pipeline.quality.batches import batch_query, existing_tables, summary_query
from pipeline.quality.pandas_frames import as_pandas, converts_through_arrow
from pipeline.quality.suites import SuiteSpec, load_suites
from tests.quality.conftest import break_copy

SUITES = load_suites()

#: Every NULL case pyarrow's defaults convert differently from `.df()`, beside the ones it converts alike.
_EDGE_CASES = """
SELECT * FROM (VALUES
    (1, 1::TINYINT, 7::UTINYINT, true, 'a', NULL::VARCHAR, [1, 2], ['x'], 0.5::DOUBLE, NULL::BIGINT, NULL),
    (NULL, NULL, 8, NULL, NULL, NULL, NULL, [], NULL, NULL, NULL),
    (3, 3, NULL, false, 'c', NULL, [], NULL, 1.5, NULL, NULL)
) AS t(int_nulls, tiny_nulls, utiny_nulls, bool_nulls, text_nulls, text_all_null, list_nulls, text_list_nulls,
       double_nulls, int_all_null, untyped_null)
"""


def _assert_same(relation_sql: str, con: duckdb.DuckDBPyConnection) -> None:
    """Equal to `.df()` but for the NULL-typed columns, which are Arrow nulls there (0 bytes a row)."""
    expected, got = con.sql(relation_sql).df(), as_pandas(con.sql(relation_sql))
    relation = con.sql(relation_sql)
    untyped = [c for c, t in zip(relation.columns, relation.types, strict=True) if str(t) == '"NULL"']
    for column in untyped:
        assert str(got[column].dtype) == "null[pyarrow]" and got[column].isna().all(), column
        assert expected[column].isna().all() and got[column].memory_usage(index=False) == 0, column
    if untyped and len(expected):
        hashed = pd.util.hash_pandas_object  # what GX fingerprints a batch with
        assert hashed(got[untyped]).tolist() == hashed(expected[untyped]).tolist()
    got, expected = got.drop(columns=untyped), expected.drop(columns=untyped)
    assert [str(t) for t in got.dtypes] == [str(t) for t in expected.dtypes]
    pd.testing.assert_frame_equal(got, expected, check_dtype=True, check_exact=True)
    for column in expected.columns:
        if expected[column].dtype == object:
            assert [type(v) for v in got[column]] == [type(v) for v in expected[column]], column


def _suite_query(con: duckdb.DuckDBPyConnection, suite: SuiteSpec) -> str:
    present = existing_tables(con)
    return summary_query(suite, present) if suite.summary_sql is not None else batch_query(con, suite, present)


def test_null_edge_cases_match_duckdb() -> None:
    con = duckdb.connect()
    _assert_same(_EDGE_CASES, con)
    frame = as_pandas(con.sql(_EDGE_CASES))
    assert [str(frame[c].dtype) for c in ("int_nulls", "utiny_nulls", "bool_nulls")] == ["Int32", "UInt8", "boolean"]
    assert frame["text_all_null"].tolist() == [None, None, None]
    assert frame["list_nulls"][1] is pd.NA
    assert str(frame["int_all_null"].dtype) == "Int64"
    assert str(frame["untyped_null"].dtype) == "null[pyarrow]"  # `.df()`: object, None in every row


@pytest.mark.parametrize(
    "other",
    ["sum(x)", "0.5", "date '2026-12-03'", "{'a': x}", "[[x]]"],
    ids=["hugeint", "decimal", "date", "struct", "nested"],
)
def test_other_types_are_fetched_by_duckdb_itself(other: str) -> None:
    con = duckdb.connect()
    query = f"SELECT {other} AS other, 1 AS plain FROM (VALUES (1::BIGINT), (NULL)) AS t(x) GROUP BY x ORDER BY x"
    _assert_same(query, con)
    assert not converts_through_arrow(con.sql(query).to_arrow_table().schema)


def test_empty_result_keeps_its_columns() -> None:
    con = duckdb.connect()
    _assert_same(f"SELECT * FROM ({_EDGE_CASES}) WHERE false", con)
    assert list(as_pandas(con.sql(f"SELECT * FROM ({_EDGE_CASES}) WHERE false")).columns)[:2] == [
        "int_nulls",
        "tiny_nulls",
    ]


@pytest.fixture(scope="module")
def releases(
    good_release: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, duckdb.DuckDBPyConnection]]:
    broken = break_copy(good_release / config.DUCKDB_FILENAME, tmp_path_factory.mktemp("broken_frames"))
    paths = {"good": good_release, "broken": broken}
    cons = {n: duckdb.connect(str(p / config.DUCKDB_FILENAME), read_only=True) for n, p in paths.items()}
    yield cons
    for con in cons.values():
        con.close()


@pytest.mark.parametrize("release", ["good", "broken"])
@pytest.mark.parametrize("suite", SUITES, ids=[s.table for s in SUITES])
def test_every_suite_query_matches_duckdb(
    releases: dict[str, duckdb.DuckDBPyConnection], release: str, suite: SuiteSpec
) -> None:
    con = releases[release]
    query = _suite_query(con, suite)
    assert converts_through_arrow(con.sql(query).to_arrow_table().schema)  # no suite falls back to `.df()`
    _assert_same(query, con)
