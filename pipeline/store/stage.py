"""The store stage as `pipeline/run.py` calls it: frames and the computed damage in, a DuckDB file out.

The damage matrix (hive Parquet beside the DuckDB file, files per scenario) is written while a thread
writes each table's Parquet file (their hashes key what the quality gates and publishing reuse of an unchanged
table) and another loads the tables into DuckDB, or, when this code built the previous release's file, copies
it and loads again only the tables whose Parquet changed (`patch`); then DuckDB gets the matrix, as a table or
a view, before the quality gates run.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from duckdb import Error as DuckdbError

from pipeline import config
from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.damage.expand import WrittenPart
from pipeline.damage.matrix import DamageComputation
from pipeline.store.ddl import TABLE_MODELS
from pipeline.store.load import DamageMatrixKind, attach_damage_matrix, attach_unit_matchups, load_duckdb
from pipeline.store.parquet import write_parquet_tables
from pipeline.store.patch import DuckdbReuse, patch_duckdb, tables_to_load


@dataclass(frozen=True)
class StoreReport:
    """How the damage matrix is held in DuckDB, its size, and its files (those the cache gave included)."""

    damage_matrix_in_duckdb: DamageMatrixKind
    damage_cells: int
    matrix_files: tuple[WrittenPart, ...] = ()
    release: Path = Path()
    #: sha256 of each `<table>.parquet`, by table (docs/releases.md#unchanged-tables).
    table_files: Mapping[str, str] = field(default_factory=dict)
    #: The tables loaded into DuckDB: all of them, or those a patched copy of the previous file loaded again.
    duckdb_loaded: tuple[str, ...] = ()
    duckdb_patched: bool = False

    def as_dict(self) -> dict[str, Any]:
        """What the manifest records (the same whatever the cache gave: releases do not depend on it)."""
        return {"damage_matrix_in_duckdb": self.damage_matrix_in_duckdb}

    @property
    def partitions(self) -> tuple[int, int]:
        """Matrix files computed, and placed from the cache."""
        cached = sum(f.from_cache for f in self.matrix_files)
        return len(self.matrix_files) - cached, cached

    @property
    def duckdb_tables(self) -> tuple[int, int]:
        """Tables loaded into DuckDB, and kept from the previous release's file (a patched copy)."""
        kept = len(TABLE_MODELS) - len(self.duckdb_loaded) if self.duckdb_patched else 0
        return len(self.duckdb_loaded), kept

    @property
    def table_hashes(self) -> dict[str, str]:
        """sha256 of each `<table>.parquet`, by path relative to the release."""
        return {f"{table}.parquet": sha for table, sha in self.table_files.items()}

    @property
    def matrix_hashes(self) -> dict[str, str]:
        """sha256 of each matrix file, by path relative to the release (taken as it was written or placed)."""
        return {f.path.relative_to(self.release).as_posix(): f.file.sha256 for f in self.matrix_files}


def store_stage(
    frames: Mapping[str, pl.DataFrame],
    damage: DamageComputation,
    release: Path,
    cache: PartCache | None = None,
    reuse: DuckdbReuse | None = None,
) -> StoreReport:
    """`damage_matrix/` Parquet (each part placed from `cache` when it holds its key) and meanwhile each table's
    `<table>.parquet` and `dataslate.duckdb` with every table (a patched copy of the previous release's file when
    `reuse` finds one this code built); then the matrix, `unit_matchups` (a view over the partitions already in
    the release, when there are any) and the views. The file built is recorded in `reuse`'s cache."""
    db_path = release / config.DUCKDB_FILENAME
    with ThreadPoolExecutor(max_workers=2) as pool:  # the tables load and are written while the matrix is
        tables = pool.submit(write_parquet_tables, frames, release)
        loading = pool.submit(_load, frames, db_path, reuse, tables)
        files = damage.write_parquet(release, cache=cache)
        loaded, patched = loading.result()
    kind = attach_damage_matrix(db_path, damage.cells)
    attach_unit_matchups(db_path)
    if reuse is not None:
        reuse.remember(db_path, tables.result())
    return StoreReport(kind, damage.cells, tuple(files), release, tables.result(), loaded, patched)


def _load(
    frames: Mapping[str, pl.DataFrame], db_path: Path, reuse: DuckdbReuse | None, tables: Future[dict[str, str]]
) -> tuple[tuple[str, ...], bool]:
    """The tables loaded, and whether into a copy of the previous file (which needs the Parquet hashes first).
    A copy that cannot be patched is never trusted: the file is built whole, with a warning."""
    base = reuse.base() if reuse is not None else None
    if base is not None:
        load = tables_to_load(base.tables, tables.result())
        try:
            patch_duckdb(frames, db_path, base.path, load)
            return tuple(load), True
        except (OSError, DuckdbError) as exc:
            why = f"previous DuckDB file not patched, loading every table: {exc!s:.200}"
            warnings.warn(why, CacheWarning, stacklevel=1)
    load_duckdb(frames, db_path)
    return tuple(model.TABLE for model in TABLE_MODELS), False
