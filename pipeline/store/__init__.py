"""Stage: the DuckDB store (DDL, integrity, Arrow loading, views)."""

from pipeline.store.load import load_duckdb
from pipeline.store.tables import build_frames

__all__ = ["build_frames", "load_duckdb"]
