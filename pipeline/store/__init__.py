"""Stage: the store — integrity (typed frames) and the DuckDB file (DDL, Arrow loading, damage matrix, views)."""

from pipeline.store.load import load_duckdb, open_store
from pipeline.store.stage import StoreReport, store_stage
from pipeline.store.tables import build_frames

__all__ = ["StoreReport", "build_frames", "load_duckdb", "open_store", "store_stage"]
