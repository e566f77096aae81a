"""Write the frames into a DuckDB file: DDL first, then Arrow bulk inserts."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import duckdb
import polars as pl

from pipeline.errors import PublishError
from pipeline.store.bounded import bounded_connect
from pipeline.store.ddl import TABLE_MODELS, create_table_sql
from pipeline.store.views import create_damage_views, create_views
from schemas.records import Record


def load_duckdb(frames: Mapping[str, pl.DataFrame], db_path: Path) -> None:
    """Create `db_path` (replacing it) with every table, its keys and the views.

    Tables are filled from Arrow in one statement each (no row-by-row inserts),
    parents before children so foreign keys hold while loading. Polars hands its text over as Arrow string
    views, which DuckDB reads as they are: the default (Arrow's large strings) copied every string first
    (docs/scaling.md#where-the-memory-goes).
    """
    db_path.unlink(missing_ok=True)
    with bounded_connect(db_path) as con:
        for model in TABLE_MODELS:
            fill_table(con, model, frames.get(model.TABLE))
        create_views(con)
        con.execute("CHECKPOINT")


def fill_table(con: duckdb.DuckDBPyConnection, model: type[Record], frame: pl.DataFrame | None) -> None:
    """`model`'s table created and filled from `frame` (Arrow string views, one statement)."""
    con.execute(create_table_sql(model))
    if frame is not None and not frame.is_empty():
        arrow = frame.to_arrow(compat_level=pl.CompatLevel.newest())  # noqa: F841  (DuckDB's replacement scan)
        con.execute(f"INSERT INTO {model.TABLE} SELECT * FROM arrow")


#: Above this many cells the damage matrix stays in Parquet and DuckDB gets a view.
DAMAGE_TABLE_MAX_ROWS = 5_000_000

#: The matrix Parquet, relative to the release folder (a constant: no path is ever pasted into SQL).
DAMAGE_MATRIX_SOURCE = "read_parquet('damage_matrix/*/*.parquet', hive_partitioning = true)"


DamageMatrixKind = Literal["table", "view"]


@contextmanager
def open_store(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A store opened read-only, the damage matrix view's Parquet resolving beside it (path bound)."""
    with bounded_connect(db_path, read_only=True) as con:
        con.execute("SET enable_progress_bar = false")  # the matrix summary takes seconds: no bar on stdout
        with searchable(db_path.parent) as folder:
            con.execute("SET file_search_path = ?", [folder])
            yield con


def attach_damage_matrix(db_path: Path, cells: int) -> DamageMatrixKind:
    """Add `damage_matrix` (already written as hive Parquet beside the DuckDB file).

    Small matrices are copied in as a table; larger ones become a view over
    `damage_matrix/scenario=*/*.parquet`, resolved relative to the release folder:
    open the file with `SET file_search_path` set to the release, or from inside the
    folder (`dataslate sql` registers the Parquet itself). Returns "table" or "view".
    """
    kind: DamageMatrixKind
    with bounded_connect(db_path) as con, searchable(db_path.parent) as folder:
        con.execute("SET file_search_path = ?", [folder])  # bound, never pasted: any folder name is safe
        if cells <= DAMAGE_TABLE_MAX_ROWS:
            order = "ORDER BY scenario, weapon_id, profile_id"
            con.execute(f"CREATE TABLE damage_matrix AS SELECT * FROM {DAMAGE_MATRIX_SOURCE} {order}")
            kind = "table"
        else:
            con.execute(f"CREATE VIEW damage_matrix AS SELECT * FROM {DAMAGE_MATRIX_SOURCE}")
            kind = "view"
        create_damage_views(con)
        con.execute("CHECKPOINT")
    return kind


#: The unit × unit partitions, relative to the release folder (pipeline/matchups/partition.py).
UNIT_MATCHUPS_SOURCE = "read_parquet('unit_matchups/*/*/*.parquet', hive_partitioning = true)"


def attach_unit_matchups(db_path: Path) -> bool:
    """`unit_matchups` as a view over its partitions beside the DuckDB file (resolved like the damage
    matrix view); False when the release has none."""
    if not any((db_path.parent / "unit_matchups").glob("*/*/*.parquet")):
        return False
    con = duckdb.connect(str(db_path))
    try:
        with searchable(db_path.parent) as folder:
            con.execute("SET file_search_path = ?", [folder])
            con.execute(f"CREATE VIEW unit_matchups AS SELECT * FROM {UNIT_MATCHUPS_SOURCE}")
        con.execute("CHECKPOINT")
        return True
    finally:
        con.close()


@contextmanager
def searchable(folder: Path) -> Iterator[str]:
    """`folder` as a `file_search_path` entry: itself, or a temporary symlink to it when its
    path holds a comma, that setting's separator (quotes and glob characters are read literally)."""
    path = folder.resolve().as_posix()
    if "," not in path:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="dataslate-") as tmp:
        alias = Path(tmp, "release")
        alias.symlink_to(path, target_is_directory=True)
        if "," in alias.as_posix():
            raise PublishError("the temporary folder's path holds a comma", path=alias)
        yield alias.as_posix()
