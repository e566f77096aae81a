"""Write every published format of one release into its (staging) folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from pipeline import __version__, config
from pipeline.damage.matrix import MATRIX_COLUMNS, DamageComputation
from pipeline.publish.formats import (
    write_faction_documents,
    write_feed,
    write_json_schemas,
    write_parquet_tables,
)
from pipeline.publish.manifest import build_manifest, write_manifest
from pipeline.store.load import attach_damage_matrix


def write_damage(computation: DamageComputation, release: Path, reference_ids: list[str]) -> tuple[int, pl.DataFrame]:
    """The matrix as hive Parquet (one file per scenario) and the feed's slice of it.

    Returns the number of cells and `damage_vs_reference`: every weapon against the
    reference profiles, all scenarios, ids as plain strings.
    """
    computation.write_parquet(release)
    cells = computation.report.cells_per_scenario * len(computation.scenarios)
    slices = [computation.matrix(s.name, profile_ids=reference_ids) for s in computation.scenarios]
    frame = pl.concat(slices) if slices else pl.DataFrame(schema=dict.fromkeys(MATRIX_COLUMNS, pl.String))
    return cells, frame.with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String))


def write_release(
    release: Path,
    version: str,
    frames: dict[str, pl.DataFrame],
    damage: DamageComputation,
    reports: dict[str, Any],
) -> dict[str, int]:
    """Parquet, damage matrix (Parquet + DuckDB), NDJSON feed, faction documents, JSON Schemas, manifest."""
    write_parquet_tables(frames, release)
    cells, vs_reference = write_damage(damage, release, frames["reference_profiles"]["profile_id"].to_list())
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
