"""Write every published format of one release into its (staging) folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from pipeline import __version__, config
from pipeline.damage.matrix import MATRIX_COLUMNS, DamageComputation, partition_path
from pipeline.publish.formats import (
    write_faction_documents,
    write_feed,
    write_json_schemas,
    write_parquet_tables,
)
from pipeline.publish.manifest import build_manifest, write_manifest
from pipeline.store.load import attach_damage_matrix


def write_damage(computation: DamageComputation, release: Path) -> tuple[int, pl.DataFrame]:
    """Expand and write the matrix one scenario at a time (hive Parquet); keep the feed's slice.

    Returns the number of cells and `damage_vs_reference` (every weapon against the
    reference profiles, all scenarios).
    """
    cells, reference_rows = 0, []
    for scenario in computation.scenarios:
        matrix = computation.matrix(scenario.name)
        cells += matrix.height
        path = partition_path(release, scenario.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        matrix.drop("scenario").write_parquet(path, compression="zstd", statistics=True)
        is_reference = pl.col("profile_id").cast(pl.String).str.starts_with("ref:")
        reference_rows.append(matrix.filter(is_reference).with_columns(pl.col(pl.Categorical).cast(pl.String)))
        del matrix
    frame = pl.concat(reference_rows) if reference_rows else pl.DataFrame(schema=dict.fromkeys(MATRIX_COLUMNS))
    return cells, frame


def write_release(
    release: Path,
    version: str,
    frames: dict[str, pl.DataFrame],
    damage: DamageComputation,
    reports: dict[str, Any],
) -> dict[str, int]:
    """Parquet, damage matrix (Parquet + DuckDB), NDJSON feed, faction documents, JSON Schemas, manifest."""
    write_parquet_tables(frames, release)
    cells, vs_reference = write_damage(damage, release)
    reports["damage_matrix_in_duckdb"] = attach_damage_matrix(release / config.DUCKDB_FILENAME, cells)
    write_feed(frames, vs_reference, release)
    write_faction_documents(frames, release)
    counts = {name: frame.height for name, frame in frames.items()}
    counts["damage_matrix"] = cells
    counts["damage_vs_reference"] = vs_reference.height
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
