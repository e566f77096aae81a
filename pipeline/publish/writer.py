"""Write the remaining published formats of one release into its (staging) folder.

The store stage has already written the DuckDB file and the damage matrix's Parquet;
publishing adds the table Parquet files, the feed, the JSON Schemas and the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import __version__
from pipeline.damage.matrix import MATRIX_COLUMNS, DamageComputation
from pipeline.publish.formats import (
    write_faction_documents,
    write_feed,
    write_json_schemas,
    write_parquet_tables,
)
from pipeline.publish.manifest import build_manifest, write_manifest
from pipeline.publish.outdir import Publication
from pipeline.reports import RunReports


@dataclass(frozen=True)
class Published:
    """What publishing wrote: rows per published table (the feed's slice included) and the manifest."""

    row_counts: dict[str, int]
    manifest: dict[str, Any]


def damage_vs_reference(computation: DamageComputation, reference_ids: list[str]) -> pl.DataFrame:
    """Every weapon against the reference profiles, all scenarios, ids as plain strings (the feed's slice)."""
    slices = [computation.matrix(s.name, profile_ids=reference_ids) for s in computation.scenarios]
    frame = pl.concat(slices) if slices else pl.DataFrame(schema=dict.fromkeys(MATRIX_COLUMNS, pl.String))
    return frame.with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String))


def write_release(
    release: Path,
    version: str,
    frames: Mapping[str, pl.DataFrame],
    damage: DamageComputation,
    reports: RunReports,
    publication: Publication,
) -> Published:
    """Parquet, NDJSON feed, faction documents, JSON Schemas, manifest (with the reports as given and
    the release's place in its output folder)."""
    write_parquet_tables(frames, release)
    vs_reference = damage_vs_reference(damage, frames["reference_profiles"]["profile_id"].to_list())
    write_feed(frames, vs_reference, release)
    write_faction_documents(frames, release)
    counts = {name: frame.height for name, frame in frames.items()}
    counts["damage_matrix"] = damage.cells
    counts["damage_vs_reference"] = vs_reference.height
    schema_texts = write_json_schemas(release, list(counts))
    manifest = build_manifest(
        version=version,
        code_version=__version__,
        frames=frames,
        row_counts=counts,
        schema_texts=schema_texts,
        quality=reports.quality.as_dict(),
        reports=reports.as_dict(),
        release=release,
        publication=publication.as_dict(),
    )
    write_manifest(manifest, release)
    return Published(counts, manifest)
