"""What changed in a table between two releases, by key: rows added, removed, changed.

`line` moves with unrelated input lines and `provenance` explains a value rather than being
one, so neither makes a row changed; floats are compared to `SIGNIFICANT_DIGITS` significant digits. Used by
the manifest's change summary and `dataslate diff`.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

#: Columns that never make a row changed.
IGNORED = frozenset({"line", "provenance"})
_KEY = "_key"
_ROW = "_row"


@dataclass(frozen=True)
class TableChanges:
    """Keys (joined with ` | `) added and removed, and the keys of changed rows."""

    added: list[str]
    removed: list[str]
    changed: list[str]

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "changed": len(self.changed)}


#: Floats are compared to this many significant digits: the engines' results differ in the last bits when the
#: batch they were computed in differs (another unit added), which is no change of the value.
SIGNIFICANT_DIGITS = 9


def _comparable(frame: pl.DataFrame, column: str) -> pl.Expr:
    dtype = frame.schema[column]
    if dtype.is_float():
        return pl.col(column).round_sig_figs(SIGNIFICANT_DIGITS)
    if isinstance(dtype, pl.List) and dtype.inner.is_float():
        return pl.col(column).list.eval(pl.element().round_sig_figs(SIGNIFICANT_DIGITS))
    return pl.col(column)


def keyed(frame: pl.DataFrame, key: tuple[str, ...], compared: list[str]) -> pl.DataFrame:
    label = pl.concat_str([pl.col(k).cast(pl.String).fill_null("None") for k in key], separator=" | ")
    hashed = frame.select([_comparable(frame, c) for c in compared]).hash_rows(seed=0) if compared else None
    keyed = frame.select(label.alias(_KEY))
    return keyed.with_columns(hashed.alias(_ROW) if hashed is not None else pl.lit(0, pl.UInt64).alias(_ROW))


def compared_columns(old: pl.DataFrame, new: pl.DataFrame) -> list[str]:
    """Columns both have with the same type, but the ignored ones."""
    return [c for c in new.columns if c in old.columns and c not in IGNORED and old.schema[c] == new.schema[c]]


def table_changes(old: pl.DataFrame | None, new: pl.DataFrame | None, key: tuple[str, ...]) -> TableChanges:
    """Rows added, removed and changed between two versions of one table (either may be missing)."""
    if old is None and new is None:
        return TableChanges([], [], [])
    old = old if old is not None else pl.DataFrame(schema=new.schema if new is not None else {})
    new = new if new is not None else pl.DataFrame(schema=old.schema)
    compared = compared_columns(old, new)
    before, after = keyed(old, key, compared), keyed(new, key, compared)
    added = after.join(before, on=_KEY, how="anti")[_KEY].sort().to_list()
    removed = before.join(after, on=_KEY, how="anti")[_KEY].sort().to_list()
    both = before.join(after, on=_KEY, how="inner", suffix="_new")
    changed = both.filter(pl.col(_ROW) != pl.col(f"{_ROW}_new"))[_KEY].unique().sort().to_list()
    return TableChanges(added, removed, changed)
