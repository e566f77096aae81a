"""The store stage as `pipeline/run.py` calls it: frames and the computed damage in, a DuckDB file out.

The damage matrix (hive Parquet beside the DuckDB file, one file per scenario) is written while a thread
loads the tables into DuckDB; then DuckDB gets the matrix, as a table or a view, before the quality gates run.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config
from pipeline.damage.matrix import DamageComputation
from pipeline.store.load import DamageMatrixKind, attach_damage_matrix, attach_unit_matchups, load_duckdb


@dataclass(frozen=True)
class StoreReport:
    """How the damage matrix is held in DuckDB, and its size."""

    damage_matrix_in_duckdb: DamageMatrixKind
    damage_cells: int

    def as_dict(self) -> dict[str, Any]:
        return {"damage_matrix_in_duckdb": self.damage_matrix_in_duckdb}


def store_stage(frames: Mapping[str, pl.DataFrame], damage: DamageComputation, release: Path) -> StoreReport:
    """`damage_matrix/` Parquet and meanwhile `dataslate.duckdb` with every table; then the matrix,
    `unit_matchups` (a view over the partitions already in the release, when there are any) and the views."""
    db_path = release / config.DUCKDB_FILENAME
    with ThreadPoolExecutor(max_workers=1) as pool:  # the tables load while the matrix is written
        loading = pool.submit(load_duckdb, frames, db_path)
        damage.write_parquet(release)
        loading.result()
    kind = attach_damage_matrix(db_path, damage.cells)
    attach_unit_matchups(db_path)
    return StoreReport(kind, damage.cells)
