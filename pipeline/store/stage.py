"""The store stage as `pipeline/run.py` calls it: frames and the computed damage in, a DuckDB file out.

The damage matrix is written first (hive Parquet beside the DuckDB file, one file per
scenario) so that DuckDB holds it, as a table or a view, before the quality gates run.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    """`damage_matrix/` Parquet, then `dataslate.duckdb` with every table, the matrix, `unit_matchups` (a view
    over the partitions already in the release, when there are any) and the views."""
    damage.write_parquet(release)
    db_path = release / config.DUCKDB_FILENAME
    load_duckdb(frames, db_path)
    kind = attach_damage_matrix(db_path, damage.cells)
    attach_unit_matchups(db_path)
    return StoreReport(kind, damage.cells)
