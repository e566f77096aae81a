"""Each table's `<table>.parquet`, written by the store beside the DuckDB file: its sha256 keys what the quality
gates and publishing reuse of an unchanged table (docs/releases.md#unchanged-tables)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl

from pipeline.ids import stored_file_sha256

#: Not written as one `<table>.parquet`: the matrix has its own hive-partitioned files.
PARTITIONED_TABLES = frozenset({"damage_matrix"})


def write_parquet_tables(frames: Mapping[str, pl.DataFrame], release: Path) -> dict[str, str]:
    """`<table>.parquet` (zstd) for every table but the damage matrix; returns each file's sha256 by table."""
    written = {}
    for table in sorted(frames):
        if table in PARTITIONED_TABLES:
            continue
        path = release / f"{table}.parquet"
        frames[table].write_parquet(path, compression="zstd", statistics=False)
        written[table] = stored_file_sha256(str(path))
    return written
