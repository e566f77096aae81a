"""Records -> typed Polars frames, with key and reference integrity enforced.

DuckDB enforces primary and foreign keys, and one duplicate or orphan would fail
a whole bulk load. So rows that would break a key are moved to `quarantine`
here, with the reason, before loading: a bad row never stops the run.
"""

from __future__ import annotations

import json
import types as types_module
import typing
from collections.abc import Iterable, Sequence
from functools import cache
from operator import attrgetter
from typing import Any, Literal, Union

import polars as pl
from pydantic import PlainSerializer, WrapSerializer

from pipeline.dataset import Dataset
from pipeline.frame_types import list_series, table_schema
from pipeline.normalise.markup import strip_markup_columns, strip_markup_deep
from pipeline.runtime import cyclic_gc_paused
from pipeline.sources.accounting import clip
from pipeline.store.ddl import FOREIGN_KEYS, MODEL_BY_TABLE, TABLE_MODELS
from schemas.dice import Dice
from schemas.records import QuarantineRow, Record, Weapon, WeaponAbilityRow

PROVENANCE = ("source_id", "line")


def weapon_ability_rows(weapons: Iterable[Weapon]) -> list[WeaponAbilityRow]:
    """One `weapon_abilities` row per typed ability of each weapon."""
    rows: list[WeaponAbilityRow] = []
    for weapon in weapons:
        for ability in weapon.typed_abilities:
            rows.append(
                WeaponAbilityRow(
                    weapon_id=weapon.weapon_id, source_id=weapon.source_id, line=weapon.line, **ability.row()
                )
            )
    return rows


#: Columns that keep markup: the input as it was, and the sanitised HTML copies.
RAW_COLUMNS = {("quarantine", "raw")}


def _json_cell(value: Any) -> Any:
    """A dict column's cell as JSON text, its strings without markup (stripped before encoding)."""
    if isinstance(value, dict):
        return json.dumps(strip_markup_deep(value), sort_keys=True, ensure_ascii=False)
    return value


def _keeps_markup(model: type[Record]) -> set[str]:
    """Columns not stripped of markup: raw input, `*_html`, and JSON cells (stripped in `_json_cell`)."""
    return {
        name
        for name, field in model.model_fields.items()
        if (model.TABLE, name) in RAW_COLUMNS
        or name.endswith("_html")
        or dict in (field.annotation, getattr(field.annotation, "__origin__", None))
    }


def records_frame(model: type[Record], records: Iterable[Record]) -> pl.DataFrame:
    """A table's records as a frame with exactly the published columns and types; plain-text
    columns stripped of markup (`normalise/markup.py`). Built column by column from the attributes: the
    values `row()` gives, without a dict per row (docs/scaling.md); `EXTRA_COLUMNS` from `extra_columns()`."""
    schema = table_schema(model)
    rows = list(records)
    extra = [r.extra_columns() for r in rows] if model.EXTRA_COLUMNS else []
    kinds = {name: _field_kind(model, name) for name in schema if name not in model.EXTRA_COLUMNS}
    attributes = _attribute_columns(rows, [name for name, kind in kinds.items() if kind != "dump"])
    columns = {
        name: [e[name] for e in extra]
        if name in model.EXTRA_COLUMNS
        else _field_values(rows, name, kinds[name], attributes.get(name))
        for name in schema
    }
    if not rows:
        return strip_markup_columns(pl.DataFrame(schema=schema), _keeps_markup(model))
    lists = {
        name: list_series(name, columns[name], dtype) for name, dtype in schema.items() if isinstance(dtype, pl.List)
    }
    frame = pl.DataFrame({**columns, **lists}, schema=schema)
    return strip_markup_columns(frame, _keeps_markup(model))


FieldKind = Literal["plain", "dice", "json", "dump"]

_PLAIN_TYPES = (str, int, float, bool, type(None))


def _attribute_columns(rows: list[Record], names: list[str]) -> dict[str, list[Any]]:
    """The attributes `names` of every row, a list per name: one `attrgetter` call a row, then transposed (half
    the time of a `getattr` a cell)."""
    if len(names) < 2 or not rows:
        return {name: [getattr(r, name) for r in rows] for name in names}
    return dict(zip(names, map(list, zip(*map(attrgetter(*names), rows), strict=True)), strict=True))


def _field_values(rows: list[Record], name: str, kind: FieldKind, values: list[Any] | None) -> list[Any]:
    """One column as `row()` (`model_dump(mode="json")`) gives it, then JSON text for dict cells; `values`: the
    attribute's (for every kind but "dump")."""
    if kind == "dump" or values is None:
        return [_json_cell(r.row()[name]) for r in rows]
    if kind == "dice":
        return [None if v is None else v.text for v in values]
    return [_json_cell(v) for v in values] if kind == "json" else values


@cache
def _field_kind(model: type[Record], name: str) -> FieldKind:
    """How a field's attribute becomes its JSON value: as it is (text, numbers, flags, literals, lists of
    them), dice text (`DiceField`'s serializer), a dict (JSON text), or anything else through `row()`."""
    field = model.model_fields[name]
    serialised = any(isinstance(m, PlainSerializer | WrapSerializer) for m in field.metadata)
    annotation = field.annotation
    union = typing.get_origin(annotation) in (Union, types_module.UnionType)
    types = [a for a in typing.get_args(annotation) if a is not type(None)] if union else [annotation]
    if types == [Dice] and serialised:
        return "dice"
    if serialised or model.model_computed_fields:
        return "dump"
    if all(typing.get_origin(t) is dict for t in types):
        return "json"
    return "plain" if all(_is_plain(t) for t in types) else "dump"


def _is_plain(annotation: Any) -> bool:
    """A type whose values `model_dump(mode="json")` returns unchanged (or as an equal list)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return all(isinstance(v, _PLAIN_TYPES) for v in typing.get_args(annotation))
    if origin is list:
        return all(_is_plain(a) for a in typing.get_args(annotation))
    return annotation in _PLAIN_TYPES


def _quarantine_frame(rows: pl.DataFrame, table: str, reason: str) -> list[QuarantineRow]:
    return [
        QuarantineRow(
            source_id=row.get("source_id") or "unknown",
            line=row.get("line"),
            stage="store",
            reason=reason,
            raw=clip(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)),
            table=table,
        )
        for row in rows.to_dicts()
    ]


def drop_duplicate_keys(frame: pl.DataFrame, model: type[Record]) -> tuple[pl.DataFrame, list[QuarantineRow]]:
    """Collapse rows equal but for provenance; quarantine other rows that repeat a key.

    The first row (in input order) of a key wins, so the outcome is deterministic.
    """
    content = [c for c in frame.columns if c not in PROVENANCE or c in model.KEY]
    frame = frame.unique(subset=content, keep="first", maintain_order=True)
    if not model.KEY or frame.is_empty():
        return frame, []
    first = frame.with_row_index("_i").group_by(list(model.KEY)).agg(pl.col("_i").min())
    indexed = frame.with_row_index("_i")
    keep = indexed.join(first, on=[*model.KEY, "_i"], how="semi", nulls_equal=True)
    dropped = indexed.join(first, on=[*model.KEY, "_i"], how="anti", nulls_equal=True)
    reason = f"duplicate key ({', '.join(model.KEY)}) with different content"
    return keep.drop("_i"), _quarantine_frame(dropped.drop("_i"), model.TABLE, reason)


def drop_orphans(
    frame: pl.DataFrame, table: str, frames: dict[str, pl.DataFrame]
) -> tuple[pl.DataFrame, list[QuarantineRow]]:
    """Quarantine rows whose foreign key points at no parent row."""
    quarantined: list[QuarantineRow] = []
    for (child, column), (parent, parent_col) in FOREIGN_KEYS.items():
        if child != table or frame.is_empty():
            continue
        parent_keys = frames[parent].select(pl.col(parent_col).alias(column)).unique()
        orphans = frame.join(parent_keys, on=column, how="anti", nulls_equal=False)
        if not orphans.is_empty():
            quarantined += _quarantine_frame(orphans, table, f"{column} not found in {parent}")
            frame = frame.join(parent_keys, on=column, how="semi")
    return frame, quarantined


def build_frames(dataset: Dataset) -> dict[str, pl.DataFrame]:
    """Every published table as a frame, integrity enforced, sorted by key (the dataset is only read).

    `weapon_abilities` rows are derived from each weapon's typed abilities (rows a
    parser already emitted collapse with them, being equal but for provenance).

    Rows moved out for integrity are appended to the `quarantine` frame. The cyclic GC is paused meanwhile:
    the rows are ≈ 200k acyclic dicts, and its collections walked every record of the dataset
    (docs/scaling.md).
    """
    with cyclic_gc_paused():
        return _build_frames(dataset)


def _build_frames(dataset: Dataset) -> dict[str, pl.DataFrame]:
    records: dict[str, Sequence[Record]] = {m.TABLE: dataset.table(m.TABLE) for m in TABLE_MODELS}
    derived = weapon_ability_rows(dataset.records(Weapon))
    records[WeaponAbilityRow.TABLE] = [*dataset.records(WeaponAbilityRow), *derived]
    frames: dict[str, pl.DataFrame] = {}
    extra_quarantine: list[QuarantineRow] = []
    for model in TABLE_MODELS:
        if model.TABLE == "quarantine":
            continue
        frame = records_frame(model, records[model.TABLE])
        frame, dupes = drop_duplicate_keys(frame, model)
        frame, orphans = drop_orphans(frame, model.TABLE, frames)
        extra_quarantine += dupes + orphans
        frames[model.TABLE] = sort_by_key(frame, model)
    quarantine_model = MODEL_BY_TABLE["quarantine"]
    quarantine = records_frame(quarantine_model, [*dataset.records(QuarantineRow), *extra_quarantine])
    frames["quarantine"] = sort_by_key(quarantine, quarantine_model)
    frames["sources"] = account_store_quarantine(frames["sources"], extra_quarantine)
    return frames


def account_store_quarantine(sources: pl.DataFrame, moved: list[QuarantineRow]) -> pl.DataFrame:
    """Rows the store moved to quarantine were counted as curated by their parser: recount.

    A source row is counted once however many of its records were moved.
    """
    moved_rows: dict[str, set[object]] = {}
    for row in moved:
        moved_rows.setdefault(row.source_id, set()).add(row.line if row.line is not None else id(row))
    if not moved_rows or sources.is_empty():
        return sources
    extra = pl.DataFrame(
        {"source_id": list(moved_rows), "_moved": [len(v) for v in moved_rows.values()]},
        schema={"source_id": pl.String(), "_moved": pl.Int64()},
    )
    moved_count = pl.col("_moved").fill_null(0).clip(upper_bound=pl.col("rows_curated"))
    return (
        sources.join(extra, on="source_id", how="left")
        .with_columns(
            (pl.col("rows_quarantined") + moved_count).alias("rows_quarantined"),
            (pl.col("rows_curated") - moved_count).alias("rows_curated"),
        )
        .drop("_moved")
    )


def sort_by_key(frame: pl.DataFrame, model: type[Record]) -> pl.DataFrame:
    """Deterministic row order: by key, then by every other sortable column."""
    sortable = [c for c, t in frame.schema.items() if not isinstance(t, pl.List)]
    order = [*model.KEY, *[c for c in sortable if c not in model.KEY]]
    return frame.sort(order, nulls_last=True, maintain_order=True) if order else frame
