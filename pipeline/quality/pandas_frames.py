"""A DuckDB result as the pandas DataFrame GX validates, converted through Arrow.

DuckDB's own `.df()` builds every column in its own buffers and, for the two 600 k-row feed tables, held about
twice the memory and CPU of the same rows fetched as Arrow and converted by pyarrow (docs/quality.md#speed).
pyarrow's defaults differ from `.df()` on NULLs, so `as_pandas` converts column by column to exactly the
dtypes and values `.df()` gives (tests/quality/test_pandas_frames.py compares both on every suite's query):
integers and booleans with NULLs become pandas' nullable types, a string column of NULLs only holds `None`
(object), and a NULL list is `pd.NA`. One difference: a column of the NULL type (what `batches` selects in place
of a column no expectation reads) stays Arrow's NULL type in pandas (`null[pyarrow]`), which holds no bytes per
row where `.df()` gives an object column of `None` (8 bytes a row: ≈ 180 MB for `damage_vs_reference` at 4×);
its values are missing all the same and it hashes the same (`pd.util.hash_pandas_object`). A result with any
other column type (decimals, dates, structs: no suite reads one today) is fetched with `.df()` itself rather than
converted by a rule nobody has checked.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

#: pyarrow integer type -> the nullable pandas dtype `.df()` gives a column of it that holds NULLs.
_NULLABLE_INTEGERS = {
    pa.int8(): "Int8",
    pa.int16(): "Int16",
    pa.int32(): "Int32",
    pa.int64(): "Int64",
    pa.uint8(): "UInt8",
    pa.uint16(): "UInt16",
    pa.uint32(): "UInt32",
    pa.uint64(): "UInt64",
}


def as_pandas(relation: duckdb.DuckDBPyRelation) -> Any:
    """The relation's rows as `relation.df()` would give them (same dtypes, values and NULL markers)."""
    return arrow_as_pandas(relation.to_arrow_table(), relation)


def arrow_as_pandas(table: pa.Table, relation: duckdb.DuckDBPyRelation | None) -> Any:
    """`table` (the rows of `relation`, fetched as Arrow) as `relation.df()` would give them; `.df()` itself for
    a column type whose conversion is not checked here (`relation` None: the caller checked there is none)."""
    import pandas as pd

    if not converts_through_arrow(table.schema):
        if relation is None:
            raise ValueError(f"no checked conversion for {table.schema}")
        return relation.df()
    columns = {name: _column(table.column(name), pd) for name in table.column_names}
    del table  # the pandas columns hold what they need of it
    # copy=False: the frame takes the columns as they are (pandas copies a dict's Series by default: a second
    # copy of every column at once, the quality step's peak at 4x; docs/quality.md#speed)
    return pd.DataFrame(columns, index=pd.RangeIndex(len(next(iter(columns.values()), ()))), copy=False)


def converts_through_arrow(schema: pa.Schema) -> bool:
    """Whether every column has a type whose conversion `as_pandas` checks (else it asks `.df()`)."""
    return all(_is_plain(field.type) for field in schema)


def _is_plain(kind: pa.DataType) -> bool:
    """Integers, floats, booleans, strings, lists of them, and the NULL of a column no expectation reads."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _is_plain(kind.value_type) and not pa.types.is_list(kind.value_type)
    checks = (pa.types.is_null, pa.types.is_integer, pa.types.is_floating, pa.types.is_boolean, pa.types.is_string)
    return any(check(kind) for check in checks) or pa.types.is_large_string(kind)


def _column(column: pa.ChunkedArray, pd: Any) -> Any:
    kind, nulls = column.type, column.null_count
    if pa.types.is_null(kind):  # a column no expectation reads: Arrow's NULL type holds no bytes per row
        return pd.Series(pd.arrays.ArrowExtensionArray(column), copy=False)
    if nulls and (kind in _NULLABLE_INTEGERS or pa.types.is_boolean(kind)):
        nullable = pd.api.types.pandas_dtype(_NULLABLE_INTEGERS.get(kind, "boolean"))
        return column.to_pandas(types_mapper={kind: nullable}.get)
    if nulls == len(column) and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return pd.Series([None] * len(column), dtype=object)
    series = column.to_pandas()
    if nulls and (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        series = series.where(series.notna(), pd.NA)
    return series
