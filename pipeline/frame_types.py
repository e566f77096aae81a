"""Polars column types of the record models: the published columns of a table, in a fixed order.

Every stage that builds a table's frame (damage, publish, store, quality) reads its columns from here.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

import polars as pl

from schemas.dice import Dice
from schemas.records import Record


def _unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else str
    return annotation


def polars_type(annotation: Any) -> pl.DataType:
    """Polars dtype of a model field annotation (dice and literals are text)."""
    annotation = _unwrap_optional(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        return pl.List(polars_type(typing.get_args(annotation)[0]))
    if origin is dict:
        return pl.String()
    if origin is Literal or origin is typing.Annotated:
        return pl.String()
    simple: dict[Any, pl.DataType] = {
        str: pl.String(),
        int: pl.Int64(),
        float: pl.Float64(),
        bool: pl.Boolean(),
        Dice: pl.String(),
    }
    return simple.get(annotation, pl.String())


def table_schema(model: type[Record]) -> dict[str, pl.DataType]:
    """Published columns of a table and their Polars types, in a fixed order."""
    schema = {name: polars_type(field.annotation) for name, field in model.model_fields.items() if not field.exclude}
    schema.update({name: polars_type(kind) for name, kind in model.EXTRA_COLUMNS.items()})
    provenance = [c for c in ("source_id", "line") if c not in model.KEY]
    ordered = [c for c in schema if c not in provenance] + provenance
    return {c: schema[c] for c in ordered}


#: Arrow types of the Polars types a list column holds (`list_series`).
_ARROW_ITEMS = {pl.String(): "large_string", pl.Int64(): "int64", pl.Float64(): "float64", pl.Boolean(): "bool_"}


def list_series(name: str, values: list[Any], dtype: pl.DataType) -> pl.Series:
    """A list column from Python lists (None: NULL), through Arrow: Polars builds a Series for every inner
    list (≈ 6 µs each, 30 times Arrow's cost; docs/scaling.md). Other types: Polars' constructor."""
    inner = dtype.inner if isinstance(dtype, pl.List) else None
    item = _ARROW_ITEMS.get(inner) if isinstance(inner, pl.DataType) else None
    if item is None:
        return pl.Series(name, values, dtype=dtype)
    import pyarrow as pa

    arrow = pa.array(values, type=pa.large_list(getattr(pa, item)()))
    return pl.Series(name, arrow).cast(dtype)
