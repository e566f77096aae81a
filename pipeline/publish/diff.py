"""`dataslate diff OLD NEW`: what changed between two releases, by stable id, field by field.

Rows are matched by their table's key (publish/changes.py); `line` and `provenance` never
make a row changed (they say where a value came from, not what it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from pipeline.publish.changes import IGNORED, compared_columns, keyed, table_changes
from pipeline.publish.release import resolve_release
from pipeline.store.ddl import MODEL_BY_TABLE

#: The table whose added rows are "new" findings and removed rows "fixed" ones, listed with these columns.
FINDINGS = "findings"
FINDING_COLUMNS = ("category", "severity", "message")


@dataclass
class TableDiff:
    table: str
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "changed": len(self.changed)}

    def as_json(self) -> dict[str, Any]:
        return {"table": self.table, "added": self.added, "removed": self.removed, "changed": self.changed}


def _read(path: Path) -> pl.DataFrame | None:
    """A table's Parquet (pyarrow opens the path as it is: `[` or `*` in a folder name are no glob)."""
    frame = pl.from_arrow(pq.read_table(path)) if path.exists() else None
    return frame if isinstance(frame, pl.DataFrame) else None


def _rows(frame: pl.DataFrame, key: tuple[str, ...], keys: list[str]) -> dict[str, dict[str, Any]]:
    labelled = frame.with_columns(keyed(frame, key, []).get_column("_key"))
    return {row.pop("_key"): row for row in labelled.filter(pl.col("_key").is_in(keys)).to_dicts()}


def _described(frame: pl.DataFrame | None, keys: list[str]) -> list[dict[str, Any]]:
    """Findings by id with their category, severity and message (a new or fixed finding says what it is)."""
    if frame is None or not keys:
        return [{"key": k} for k in keys]
    rows = _rows(frame.select("finding_id", *FINDING_COLUMNS), MODEL_BY_TABLE[FINDINGS].KEY, keys)
    return [{"key": k, **{c: rows[k][c] for c in FINDING_COLUMNS}} for k in keys]


def diff_table(table: str, old: Path, new: Path, *, fields: bool = True) -> TableDiff:
    """Added, removed and changed rows of one table (changed: field -> [old, new] when `fields`)."""
    key = MODEL_BY_TABLE[table].KEY
    before, after = _read(old), _read(new)
    changes = table_changes(before, after, key)
    result = TableDiff(table, [{"key": k} for k in changes.added], [{"key": k} for k in changes.removed])
    if table == FINDINGS:
        result.added, result.removed = _described(after, changes.added), _described(before, changes.removed)
    if not fields or before is None or after is None:
        result.changed = [{"key": k} for k in changes.changed]
        return result
    columns = [c for c in compared_columns(before, after) if c not in IGNORED]
    was, now = _rows(before, key, changes.changed), _rows(after, key, changes.changed)
    for k in changes.changed:
        differ = {c: [was[k].get(c), now[k].get(c)] for c in columns if was[k].get(c) != now[k].get(c)}
        result.changed.append({"key": k, "fields": differ})
    return result


def diff_releases(old: Path, new: Path, *, fields: bool = True) -> list[TableDiff]:
    """Diff every keyed table published as Parquet in either release (`fields=False`: keys only)."""
    old_dir, new_dir = resolve_release(old), resolve_release(new)
    tables = sorted({p.stem for d in (old_dir, new_dir) for p in d.glob("*.parquet")} & set(MODEL_BY_TABLE))
    return [
        diff_table(t, old_dir / f"{t}.parquet", new_dir / f"{t}.parquet", fields=fields)
        for t in tables
        if MODEL_BY_TABLE[t].KEY
    ]


def format_summary(diffs: list[TableDiff]) -> str:
    """One line per table: `table: +added -removed ~changed` (every keyed table, changed or not)."""
    width = max((len(d.table) for d in diffs), default=0)
    lines = [f"{d.table:<{width}}  +{len(d.added)} -{len(d.removed)} ~{len(d.changed)}" for d in diffs]
    lines += [f"findings: {len(d.added)} new, {len(d.removed)} fixed" for d in diffs if d.table == FINDINGS]
    return "\n".join(lines) or "no tables"


def _finding_lines(d: TableDiff) -> list[str]:
    lines = [f"  new   {row['key']} [{row.get('severity')}] {row.get('message')}" for row in d.added]
    lines += [f"  fixed {row['key']} [{row.get('severity')}] {row.get('message')}" for row in d.removed]
    for row in d.changed:
        lines += [f"  ~ {row['key']}: {name} {was!r} -> {now!r}" for name, (was, now) in row.get("fields", {}).items()]
    return lines


def format_diff(diffs: list[TableDiff]) -> str:
    """Human-readable diff: one line per added/removed row, one per changed field."""
    lines: list[str] = []
    for d in diffs:
        if d.empty:
            continue
        lines.append(f"== {d.table}: +{len(d.added)} -{len(d.removed)} ~{len(d.changed)}")
        if d.table == FINDINGS:
            lines += _finding_lines(d)
            continue
        lines += [f"  + {row['key']}" for row in d.added]
        lines += [f"  - {row['key']}" for row in d.removed]
        for row in d.changed:
            for name, (was, now) in row.get("fields", {}).items():
                lines.append(f"  ~ {row['key']}: {name} {was!r} -> {now!r}")
    return "\n".join(lines) if lines else "no differences"
