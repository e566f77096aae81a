"""Write the remaining published formats of one release into its (staging) folder.

The store stage has already written the DuckDB file, the damage matrix's Parquet and each table's Parquet;
publishing adds the feed (tables, faction documents, index), the JSON Schemas, the offline explorer (`site/`)
and the manifest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import __version__, config
from pipeline.damage.matrix import DamageComputation
from pipeline.publish.changes import TableChanges, table_changes
from pipeline.publish.contents import Pieces, changed_pieces, rows_in_pieces
from pipeline.publish.document_cache import DocumentCache, write_documents
from pipeline.publish.faction_schema import NAME as FACTION_SCHEMA
from pipeline.publish.faction_schema import faction_document_schema
from pipeline.publish.feed_index import write_feed_index
from pipeline.publish.formats import write_feed, write_json_schemas
from pipeline.publish.manifest import build_manifest, duckdb_content_hashes, write_manifest
from pipeline.publish.outdir import Publication
from pipeline.publish.previous import PreviousRelease
from pipeline.publish.site_rendering import SiteRendering, start_site
from pipeline.publish.table_reuse import TableReuse
from pipeline.reports import RunReports
from pipeline.runtime import Beside
from pipeline.store.ddl import MODEL_BY_TABLE
from pipeline.store.parquet import write_parquet_tables


@dataclass(frozen=True)
class Published:
    """What publishing wrote: rows per published table (the feed's slice included), the manifest, and what it
    reused of unchanged tables."""

    row_counts: dict[str, int]
    manifest: dict[str, Any]
    reuse: TableReuse  # its caches are pruned by the run once the release is in place
    documents: DocumentCache  # likewise


def change_summary(
    previous: PreviousRelease | None,
    frames: Mapping[str, pl.DataFrame],
    parquet: Mapping[str, str] | None = None,
    reuse: TableReuse | None = None,
) -> dict[str, Any]:
    """Rows added, removed and changed per keyed table since the previous release (by key). `parquet`: the
    sha256 of this release's `<table>.parquet` files; a table whose file is byte for byte the previous
    release's has the same rows, so nothing changed and it is not compared. `reuse`: a large table is compared
    only in the pieces whose rows changed, when the cache knows the previous release's pieces (`contents.py`)."""
    if previous is None:
        return {"against": None, "tables": {}}
    tables = {}
    for table, frame in sorted(frames.items()):
        model = MODEL_BY_TABLE.get(table)
        if model is None or not model.KEY or table == "damage_matrix":
            continue
        before = previous.parquet_sha256(table) if parquet is not None and table in parquet else None
        if before is not None and parquet is not None and before == parquet[table]:
            tables[table] = TableChanges([], [], []).counts()
            continue
        old, new = previous.table(table), frame
        pieces = _changed_pieces(table, frame, before, reuse)
        if pieces is not None and old is not None and not old[model.KEY[0]].null_count():
            old, new = rows_in_pieces(old, model.KEY[0], pieces), rows_in_pieces(new, model.KEY[0], pieces)
        tables[table] = table_changes(old, new, model.KEY).counts()
    return {"against": previous.version, "tables": tables}


def _changed_pieces(table: str, frame: pl.DataFrame, before: str | None, reuse: TableReuse | None) -> set[int] | None:
    """The pieces of a large table whose rows changed since the previous release, or None (compare it whole)."""
    pieces = Pieces.of(table, frame) if reuse is not None and before is not None else None  # None: NULL keys too
    earlier = reuse.pieces_of(table, before) if pieces is not None and reuse is not None and before else None
    return changed_pieces(earlier, pieces.keys) if pieces is not None and earlier is not None else None


def write_release(
    release: Path,
    version: str,
    frames: Mapping[str, pl.DataFrame],
    damage: DamageComputation,
    reports: RunReports,
    publication: Publication,
    previous: PreviousRelease | None = None,
    hashed: Mapping[str, str] | None = None,
    cache: Path | None = None,
    tables: Mapping[str, str] | None = None,
    site: SiteRendering | None = None,
    documents: Beside[DocumentCache] | None = None,
) -> Published:
    """The tables' Parquet (unless the store wrote them), NDJSON feed, faction documents, explorer site, feed
    index, JSON Schemas, manifest (with the reports as given, the release's place in its output folder and what
    changed since the previous release).
    `hashed`: sha256 of files already in the release (the matrix's, the cached `unit_matchups` files; by relative
    path), not read again. `cache`: the run's cache folder, where an unchanged table's feed file and contents
    hash are found (`table_reuse`), and the faction documents built from unchanged rows (`document_cache`).
    `tables`: the sha256 of each `<table>.parquet` the store wrote (None: they are written here); `site`: the site's
    rendering already started (`site_rendering.start_site`; None: it starts here, beside the faction documents);
    `documents`: the faction documents' writing already started (`document_cache.documents_beside`; None: they
    are written here)."""
    parquet = dict(tables) if tables is not None else write_parquet_tables(frames, release)  # keys what follows
    reuse = TableReuse.of(cache, parquet)
    with ThreadPoolExecutor(max_workers=3) as pool:  # DuckDB's hashes and Polars' work run beside Python's
        table_hashes = pool.submit(duckdb_content_hashes, release / config.DUCKDB_FILENAME, reuse, frames)
        feed = pool.submit(write_feed, frames, release, reuse)
        changes = pool.submit(change_summary, previous, frames, parquet, reuse)  # Polars joins against the previous
        with contextlib.ExitStack() as started:
            rendering = site or started.enter_context(start_site(frames, release, version, tables is not None))
            written = documents.result() if documents is not None else write_documents(frames, release, cache)
            rendered = rendering.report()
        known = {**{f"{table}.parquet": sha for table, sha in parquet.items()}, **feed.result(), **(hashed or {})}
        counts = {name: frame.height for name, frame in frames.items()}
        counts["damage_matrix"] = damage.cells
        index = write_feed_index(release, version, counts, known)
        schema_texts = write_json_schemas(release, list(counts), {FACTION_SCHEMA: faction_document_schema()})
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
            changes=changes.result(),
            site=rendered.as_dict(),
            known_hashes={**known, **{f"feed/{entry['path']}": entry["sha256"] for entry in index["files"]}},
            table_hashes=table_hashes.result(),
        )
    write_manifest(manifest, release)
    return Published(counts, manifest, reuse, written)
