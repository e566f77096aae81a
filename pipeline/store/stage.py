"""The store stage as `pipeline/run.py` calls it: frames and the computed damage in, a DuckDB file out.

The damage matrix (hive Parquet beside the DuckDB file, one file per scenario) is written while a thread
loads the tables into DuckDB and another writes each table's Parquet file (their hashes key what the quality
gates and publishing reuse of an unchanged table); then DuckDB gets the matrix, as a table or a view, before
the quality gates run.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config
from pipeline.cache.parts import PartCache
from pipeline.damage.expand import WrittenPart
from pipeline.damage.matrix import DamageComputation
from pipeline.store.load import DamageMatrixKind, attach_damage_matrix, attach_unit_matchups, load_duckdb
from pipeline.store.parquet import write_parquet_tables


@dataclass(frozen=True)
class StoreReport:
    """How the damage matrix is held in DuckDB, its size, and its files (those the cache gave included)."""

    damage_matrix_in_duckdb: DamageMatrixKind
    damage_cells: int
    matrix_files: tuple[WrittenPart, ...] = ()
    release: Path = Path()
    #: sha256 of each `<table>.parquet`, by table (docs/releases.md#unchanged-tables).
    table_files: Mapping[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """What the manifest records (the same whatever the cache gave: releases do not depend on it)."""
        return {"damage_matrix_in_duckdb": self.damage_matrix_in_duckdb}

    @property
    def partitions(self) -> tuple[int, int]:
        """Matrix files computed, and placed from the cache."""
        cached = sum(f.from_cache for f in self.matrix_files)
        return len(self.matrix_files) - cached, cached

    @property
    def table_hashes(self) -> dict[str, str]:
        """sha256 of each `<table>.parquet`, by path relative to the release."""
        return {f"{table}.parquet": sha for table, sha in self.table_files.items()}

    @property
    def matrix_hashes(self) -> dict[str, str]:
        """sha256 of each matrix file, by path relative to the release (taken as it was written or placed)."""
        return {f.path.relative_to(self.release).as_posix(): f.file.sha256 for f in self.matrix_files}


def store_stage(
    frames: Mapping[str, pl.DataFrame], damage: DamageComputation, release: Path, cache: PartCache | None = None
) -> StoreReport:
    """`damage_matrix/` Parquet (each part placed from `cache` when it holds its key) and meanwhile
    `dataslate.duckdb` with every table and each table's `<table>.parquet`; then the matrix, `unit_matchups` (a
    view over the partitions already in the release, when there are any) and the views."""
    db_path = release / config.DUCKDB_FILENAME
    with ThreadPoolExecutor(max_workers=2) as pool:  # the tables load and are written while the matrix is
        loading = pool.submit(load_duckdb, frames, db_path)
        tables = pool.submit(write_parquet_tables, frames, release)
        files = damage.write_parquet(release, cache=cache)
        loading.result()
    kind = attach_damage_matrix(db_path, damage.cells)
    attach_unit_matchups(db_path)
    return StoreReport(kind, damage.cells, tuple(files), release, tables.result())
