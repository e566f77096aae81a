"""`dataslate diff OLD NEW`: what changed between two releases, by stable id, field by field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from pipeline.publish.release import resolve_release
from pipeline.store.ddl import MODEL_BY_TABLE

#: Columns that move when unrelated input lines move; not a change of the data.
IGNORED = {"line"}


@dataclass
class TableDiff:
    table: str
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def as_json(self) -> dict[str, Any]:
        return {"table": self.table, "added": self.added, "removed": self.removed, "changed": self.changed}


def _rows_by_key(con: duckdb.DuckDBPyConnection, path: Path, key: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    rel = con.from_arrow(pq.read_table(path))  # not read_parquet(path): DuckDB would read "[" or "*" as a glob
    rows = [dict(zip(rel.columns, values, strict=True)) for values in rel.fetchall()]
    return {" | ".join(str(r[k]) for k in key): r for r in rows}


def diff_table(con: duckdb.DuckDBPyConnection, table: str, old: Path, new: Path) -> TableDiff:
    """Added, removed and changed rows of one table (changed: field -> [old, new])."""
    key = MODEL_BY_TABLE[table].KEY
    before = _rows_by_key(con, old, key) if old.exists() else {}
    after = _rows_by_key(con, new, key) if new.exists() else {}
    result = TableDiff(table)
    result.added = [{"key": k} for k in sorted(after.keys() - before.keys())]
    result.removed = [{"key": k} for k in sorted(before.keys() - after.keys())]
    for k in sorted(before.keys() & after.keys()):
        fields = {
            c: [before[k].get(c), after[k].get(c)]
            for c in sorted(set(before[k]) | set(after[k]))
            if c not in IGNORED and before[k].get(c) != after[k].get(c)
        }
        if fields:
            result.changed.append({"key": k, "fields": fields})
    return result


def diff_releases(old: Path, new: Path) -> list[TableDiff]:
    """Diff every keyed table published as Parquet in either release."""
    old_dir, new_dir = resolve_release(old), resolve_release(new)
    tables = sorted({p.stem for d in (old_dir, new_dir) for p in d.glob("*.parquet")} & set(MODEL_BY_TABLE))
    con = duckdb.connect()
    try:
        return [
            diff_table(con, t, old_dir / f"{t}.parquet", new_dir / f"{t}.parquet")
            for t in tables
            if MODEL_BY_TABLE[t].KEY
        ]
    finally:
        con.close()


def format_diff(diffs: list[TableDiff]) -> str:
    """Human-readable diff: one line per added/removed row, one per changed field."""
    lines: list[str] = []
    for d in diffs:
        if d.empty:
            continue
        lines.append(f"== {d.table}: +{len(d.added)} -{len(d.removed)} ~{len(d.changed)}")
        lines += [f"  + {row['key']}" for row in d.added]
        lines += [f"  - {row['key']}" for row in d.removed]
        for row in d.changed:
            for name, (was, now) in row["fields"].items():
                lines.append(f"  ~ {row['key']}: {name} {was!r} -> {now!r}")
    return "\n".join(lines) if lines else "no differences"
