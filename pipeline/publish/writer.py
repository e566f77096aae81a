"""Write every published format of one release into its (staging) folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import polars as pl

from pipeline import __version__, config
from pipeline.publish.formats import (
    write_damage_parquet,
    write_faction_documents,
    write_feed,
    write_json_schemas,
    write_parquet_tables,
)
from pipeline.publish.manifest import build_manifest, write_manifest
from pipeline.store.load import attach_damage_matrix


class DamageOutput(Protocol):
    matrix: pl.DataFrame
    report: dict[str, Any]


def damage_vs_reference(matrix: pl.DataFrame) -> pl.DataFrame:
    """The feed's slice of the matrix: every weapon against the reference profiles."""
    return matrix.filter(pl.col("profile_id").str.starts_with("ref:"))


def write_release(
    release: Path, version: str, frames: dict[str, pl.DataFrame], damage: DamageOutput, reports: dict[str, Any]
) -> dict[str, int]:
    """Parquet, DuckDB damage matrix, NDJSON feed, faction documents, JSON Schemas, manifest."""
    write_parquet_tables(frames, release)
    write_damage_parquet(damage.matrix, release)
    reports["damage_matrix_in_duckdb"] = attach_damage_matrix(release / config.DUCKDB_FILENAME, damage.matrix)
    write_feed(frames, damage_vs_reference(damage.matrix), release)
    write_faction_documents(frames, release)
    counts = {name: frame.height for name, frame in frames.items()}
    counts["damage_matrix"] = damage.matrix.height
    schema_texts = write_json_schemas(release, list(counts))
    manifest = build_manifest(
        version=version,
        code_version=__version__,
        frames=frames,
        row_counts=counts,
        schema_texts=schema_texts,
        quality=reports.get("quality", {}),
        reports={k: v for k, v in reports.items() if k != "quality"},
        release=release,
    )
    write_manifest(manifest, release)
    return counts
