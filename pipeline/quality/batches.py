"""The data a suite checks, from DuckDB as a pandas DataFrame (through Arrow: `pandas_frames`); absent tables
as empty stand-ins, the damage matrix as a summary query (docs/quality.md#how-a-table-is-fetched).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import duckdb
import polars as pl
import pyarrow as pa
from polars.datatypes import DataTypeClass

from pipeline.frame_types import table_schema
from pipeline.quality.pandas_frames import arrow_as_pandas, as_pandas
from pipeline.quality.suites import SuiteSpec
from pipeline.store.ddl import MODEL_BY_TABLE, quoted

TableStatus = Literal["ok", "empty", "absent"]

_DUCK_TYPES = {"String": "VARCHAR", "Int64": "BIGINT", "Float64": "DOUBLE", "Boolean": "BOOLEAN"}


@dataclass(frozen=True)
class Batch:
    """One table's rows as GX will see them."""

    table: str
    status: TableStatus
    rows: int
    frame: Any  # pandas.DataFrame (pandas ships no type stubs here)
    key: tuple[str, ...] = ()


def existing_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Tables and views of the connection's own database (not of attached ones)."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_catalog = current_database() AND table_schema = 'main'"
    ).fetchall()
    return {str(name) for (name,) in rows}


def reading_cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection | None:
    """A second connection to `con`'s database for another thread, resolving relative Parquet paths (the
    damage matrix view) as `con` does and drawing no progress bar; None when `con`'s configuration is
    locked (a sandboxed release reader), so that `con` alone reads."""
    cursor = con.cursor()
    try:
        for setting in ("file_search_path", "enable_progress_bar"):
            value = con.execute(f"SELECT current_setting('{setting}')").fetchall()[0][0]
            cursor.execute(f"SET {setting} = ?", [value])
    except duckdb.InvalidInputException:
        cursor.close()
        return None
    return cursor


def _duck_type(dtype: pl.DataType | DataTypeClass) -> str:
    if isinstance(dtype, pl.List):
        return _duck_type(dtype.inner) + "[]"
    return _DUCK_TYPES.get(str(dtype), "VARCHAR")


def stand_in_sql(table: str) -> str:
    """An empty relation with the table's published columns and types."""
    schema = table_schema(MODEL_BY_TABLE[table])
    columns = ", ".join(f'NULL::{_duck_type(dtype)} AS "{name}"' for name, dtype in schema.items())
    return f'"{table}" AS (SELECT {columns} WHERE false)'


def _stand_ins(present: set[str]) -> str:
    """`WITH` clause shadowing every absent known table (empty when none is absent)."""
    absent = sorted(set(MODEL_BY_TABLE) - present)
    return ("WITH " + ", ".join(stand_in_sql(t) for t in absent) + " ") if absent else ""


def _order_columns(probe: duckdb.DuckDBPyRelation, key: tuple[str, ...]) -> list[str]:
    """Key first, then every scalar column: a total, repeatable row order for samples."""
    scalar = [
        name
        for name, kind in zip(probe.columns, probe.types, strict=True)
        if not str(kind).endswith("[]") and not str(kind).startswith(("STRUCT", "MAP", "UNION"))
    ]
    return [*[c for c in key if c in scalar], *[c for c in scalar if c not in key]]


def _projected(column: str, suite: SuiteSpec, key: tuple[str, ...]) -> str:
    """The column itself, or NULL under its name when no expectation reads its values (docs/quality.md)."""
    read = suite.read_columns()
    if read is None or column in read or column in key or column in suite.derived_columns:
        return f'q."{column}"'
    return f'NULL AS "{column}"'


def batch_query(con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str], ordered: bool = True) -> str:
    """`select <read columns> from (select t.*, <derived> from <table> t) q order by ...`, stand-ins for
    absent tables; columns no expectation reads come as NULL (their names are all GX checks). Not `ordered`:
    the same rows in any order (enough to recognise them, `Rows.unordered`)."""
    derived = "".join(f', ({expr}) AS "{name}"' for name, expr in suite.derived_columns.items())
    model = MODEL_BY_TABLE.get(suite.table)
    key = model.KEY if model else ()
    relation = f"{_stand_ins(present)}SELECT t.*{derived} FROM {quoted(suite.table)} AS t"
    probe = con.sql(f"{relation} LIMIT 0")
    projection = ", ".join(_projected(c, suite, key) for c in probe.columns)
    order = _order_columns(probe, key)
    query = f"SELECT {projection} FROM ({relation}) AS q"
    return query + (" ORDER BY " + ", ".join(f'q."{c}"' for c in order) if order and ordered else "")


def summary_query(suite: SuiteSpec, present: set[str]) -> str:
    """The suite's summary query (stand-ins for absent tables), ordered by its key."""
    body = (suite.summary_sql or "").strip().rstrip(";")
    order = ", ".join(f'"{c}"' for c in suite.summary_key)
    query = f"{_stand_ins(present)}SELECT * FROM (\n{body}\n) AS summary"
    return query + (f" ORDER BY {order} NULLS LAST" if order else "")


def fetch_batch(
    con: duckdb.DuckDBPyConnection,
    suite: SuiteSpec,
    present: set[str],
    summary: duckdb.DuckDBPyRelation | None = None,
) -> Batch:
    """The suite's table with its derived columns (or its summary: `summary` when it was added up file by file),
    ordered by key (deterministic samples)."""
    if suite.summary_sql is not None:
        count, status = _count(con, suite, present)
        frame = as_pandas(summary if summary is not None else con.sql(summary_query(suite, present)))
        return Batch(table=suite.table, status=status, rows=count, frame=frame, key=suite.summary_key)
    return fetch_rows(con, suite, present).batch()


@dataclass(frozen=True)
class Rows:
    """A table's batch as Arrow, before pandas: what GX would validate, to be recognised by its contents
    (`memo.QualityMemo.batch_key`, from `unordered`) before the rows are put in key order (`arrow`: sorting
    the largest batch costs several times fetching it) and converted."""

    table: str
    status: TableStatus
    rows: int
    relation: duckdb.DuckDBPyRelation
    key: tuple[str, ...]
    unordered_relation: duckdb.DuckDBPyRelation

    @cached_property
    def arrow(self) -> pa.Table:
        """The rows in key order, as GX validates them (fetched when first asked for)."""
        return self.relation.to_arrow_table()

    def unordered(self) -> pa.Table:
        """The same rows in any order, fetched anew each time (not kept: never held beside the ordered ones)."""
        return self.unordered_relation.to_arrow_table()

    def batch(self) -> Batch:
        """The batch GX validates (the rows as pandas)."""
        return Batch(self.table, self.status, self.rows, arrow_as_pandas(self.arrow, self.relation), self.key)


def fetch_rows(con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str]) -> Rows:
    """The rows of a suite without a summary query (its table and derived columns), as Arrow when asked for: in
    key order (`Rows.arrow`), or in any order (`Rows.unordered`, to be recognised)."""
    count, status = _count(con, suite, present)
    relation = con.sql(batch_query(con, suite, present))
    unordered = con.sql(batch_query(con, suite, present, ordered=False))
    model = MODEL_BY_TABLE.get(suite.table)
    key = tuple(c for c in model.KEY if c in relation.columns) if model else ()
    return Rows(suite.table, status, count, relation, key, unordered)


def _count(con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str]) -> tuple[int, TableStatus]:
    if suite.table not in present:
        return 0, "absent"
    count = int(con.execute(f"SELECT count(*) FROM {quoted(suite.table)}").fetchall()[0][0])
    return count, "ok" if count else "empty"
