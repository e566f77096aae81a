"""The previous release's DuckDB file patched, when this code built it: only the tables whose Parquet changed
(and the tables whose foreign keys reference them) are loaded again (docs/releases.md#the-duckdb-file-patched).

A table's Parquet bytes are a function of its rows, and DuckDB's copy of a table is a function of the same rows
and the code (docs/releases.md#unchanged-tables). So once this code has built a DuckDB file, the cache records
the sha256 of that file with the Parquet hashes of the tables it holds; a later run whose previous release's file
still hashes to it copies the file and loads again only the tables that differ.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline import config
from pipeline.cache.entries import CacheWarning
from pipeline.cache.fingerprint import code_fingerprint, key_of
from pipeline.cache.hashed import unchanged_sha256
from pipeline.cache.parts import PartCache
from pipeline.ids import stored_file_sha256
from pipeline.store.bounded import bounded_connect
from pipeline.store.ddl import FOREIGN_KEYS, TABLE_MODELS, quoted
from pipeline.store.load import fill_table
from pipeline.store.views import create_views

#: Cache kind: per DuckDB file this code built (by its sha256), the Parquet hash of each table it holds.
DUCKDB_KIND = "duckdb_file"


@dataclass(frozen=True)
class DuckdbBase:
    """A DuckDB file this code built, and the sha256 of each table's Parquet file it was loaded from."""

    path: Path
    tables: Mapping[str, str]


@dataclass(frozen=True)
class DuckdbReuse:
    """Where the previous release's DuckDB file is, and the cache of what this code built."""

    cache: PartCache
    previous: Path | None

    @classmethod
    def of(cls, cache: Path | None, previous_release: Path | None) -> DuckdbReuse:
        """`cache`: the run's cache folder (None: always built whole); `previous_release`: its folder."""
        previous = None if previous_release is None else previous_release / config.DUCKDB_FILENAME
        return cls(PartCache(cache, DUCKDB_KIND), previous)

    def base(self) -> DuckdbBase | None:
        """The previous release's file if this code built it and it is unchanged since (its sha256 recorded)."""
        if self.cache.folder is None or self.previous is None:
            return None
        try:
            sha = unchanged_sha256(str(self.previous))
        except OSError:  # gone or unreadable: built whole
            return None
        found = self.cache.get(_key(sha), use=False)  # pruned once this run publishes
        if found is None:
            return None
        tables = found[1].meta.get("tables")
        if not isinstance(tables, dict) or not all(isinstance(v, str) for v in tables.values()):
            why = f"cache entry ignored, loading every table: {DUCKDB_KIND} of {self.previous}: no table hashes"
            warnings.warn(why, CacheWarning, stacklevel=2)
            return None
        return DuckdbBase(self.previous, dict(tables))

    def remember(self, db_path: Path, tables: Mapping[str, str]) -> None:
        """Record the file just built from tables with these Parquet hashes (nothing without a cache)."""
        if self.cache.folder is not None:
            self.cache.keep_bytes(_key(stored_file_sha256(str(db_path))), b"", {"tables": dict(sorted(tables.items()))})


def _key(db_sha256: str) -> str:
    return key_of(code_fingerprint(), DUCKDB_KIND, db_sha256)


def tables_to_load(base: Mapping[str, str], tables: Mapping[str, str]) -> list[str]:
    """The tables whose Parquet hash differs from the base's (or that either lacks), with every table whose
    foreign keys reference one of them, in load order (parents first)."""
    names = [model.TABLE for model in TABLE_MODELS]
    changed = {t for t in names if t not in tables or base.get(t) != tables[t]}
    while True:
        children = {child for (child, _), (parent, _) in FOREIGN_KEYS.items() if parent in changed}
        if children <= changed:
            return [t for t in names if t in changed]
        changed |= children


def patch_duckdb(frames: Mapping[str, pl.DataFrame], db_path: Path, base: Path, load: Sequence[str]) -> None:
    """`db_path` as a copy of `base` with the tables `load` dropped and loaded again from `frames` (children
    dropped first, parents loaded first, so foreign keys hold), every view made again, the damage matrix left
    for `attach_damage_matrix`."""
    shutil.copyfile(base, db_path)
    with bounded_connect(db_path) as con:
        views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        for (view,) in views:
            con.execute(f"DROP VIEW {quoted(view)}")
        con.execute("DROP TABLE IF EXISTS damage_matrix")
        models = [model for model in TABLE_MODELS if model.TABLE in load]
        for model in reversed(models):
            con.execute(f"DROP TABLE IF EXISTS {model.TABLE}")
        for model in models:
            fill_table(con, model, frames.get(model.TABLE))
        create_views(con)
        con.execute("CHECKPOINT")
