"""DuckDB connections of the pipeline's own stages, with a bounded buffer pool.

DuckDB's default `memory_limit` is 80 % of RAM, so a large load, sort or scan holds as much as it finds;
bounded, it spills to a temporary folder outside the release instead (docs/scaling.md#where-the-memory-goes).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

#: DuckDB's buffer pool in the store, quality and publish stages (bytes): sorts and hash tables past it spill.
DUCKDB_MEMORY_BYTES = 512 * 2**20


@contextmanager
def bounded_connect(db_path: Path, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """`db_path` opened with `memory_limit` DUCKDB_MEMORY_BYTES, spilling to a temporary folder of its own
    (removed on close; never inside the release, whose files are hashed and published)."""
    with tempfile.TemporaryDirectory(prefix="dataslate-duckdb-") as spill:
        settings: dict[str, str | bool | int | float | list[str]] = {
            "memory_limit": f"{DUCKDB_MEMORY_BYTES}B",
            "temp_directory": spill,
        }
        con = duckdb.connect(str(db_path), read_only=read_only, config=settings)
        try:
            yield con
        finally:
            con.close()
