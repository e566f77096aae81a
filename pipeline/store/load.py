"""Write the frames into a DuckDB file: DDL first, then Arrow bulk inserts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import duckdb
import polars as pl

from pipeline.store.ddl import TABLE_MODELS, create_table_sql
from pipeline.store.views import create_damage_views, create_views


def load_duckdb(frames: Mapping[str, pl.DataFrame], db_path: Path) -> None:
    """Create `db_path` (replacing it) with every table, its keys and the views.

    Tables are filled from Arrow in one statement each (no row-by-row inserts),
    parents before children so foreign keys hold while loading.
    """
    db_path.unlink(missing_ok=True)
    con = duckdb.connect(str(db_path))
    try:
        for model in TABLE_MODELS:
            con.execute(create_table_sql(model))
            frame = frames.get(model.TABLE)
            if frame is not None and not frame.is_empty():
                arrow = frame.to_arrow()  # noqa: F841  (read by DuckDB's replacement scan)
                con.execute(f"INSERT INTO {model.TABLE} SELECT * FROM arrow")
        create_views(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()


#: Above this many cells the damage matrix stays in Parquet and DuckDB gets a view.
DAMAGE_TABLE_MAX_ROWS = 5_000_000


DamageMatrixKind = Literal["table", "view"]


def open_store(db_path: Path) -> duckdb.DuckDBPyConnection:
    """Open a store read-only, with the damage matrix view's Parquet files resolving beside it."""
    con = duckdb.connect(str(db_path), read_only=True)
    con.execute(f"SET file_search_path = '{db_path.parent.as_posix()}'")
    return con


def attach_damage_matrix(db_path: Path, cells: int) -> DamageMatrixKind:
    """Add `damage_matrix` (already written as hive Parquet beside the DuckDB file).

    Small matrices are copied in as a table; larger ones become a view over
    `damage_matrix/scenario=*/*.parquet`, resolved relative to the release folder:
    open the file with `SET file_search_path` set to the release (as `dataslate sql`
    does) or from inside the folder. Returns "table" or "view".
    """
    source = f"read_parquet('{db_path.parent.as_posix()}/damage_matrix/*/*.parquet', hive_partitioning = true)"
    con = duckdb.connect(str(db_path))
    kind: DamageMatrixKind
    try:
        if cells <= DAMAGE_TABLE_MAX_ROWS:
            order = "ORDER BY scenario, weapon_id, profile_id"
            con.execute(f"CREATE TABLE damage_matrix AS SELECT * FROM {source} {order}")
            kind = "table"
        else:
            con.execute(f"SET file_search_path = '{db_path.parent.as_posix()}'")
            con.execute(
                "CREATE VIEW damage_matrix AS SELECT * FROM read_parquet("
                "'damage_matrix/*/*.parquet', hive_partitioning = true)"
            )
            kind = "view"
        create_damage_views(con)
        con.execute("CHECKPOINT")
        return kind
    finally:
        con.close()
