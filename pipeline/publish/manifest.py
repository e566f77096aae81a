"""`manifest.json`: what a release holds and where it came from, all hashed."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import config
from pipeline.errors import PublishError
from pipeline.ids import file_sha256
from pipeline.publish.table_reuse import TableReuse
from pipeline.store.bounded import bounded_connect

#: Rows of a table's sorted text per batch: ≈ 5 MB at the widest tables' ≈ 600 bytes a row, under glibc's
#: mmap threshold, so each batch reuses the pages the last one freed (batches of 65,536 rows, ≈ 39 MB, were
#: mapped afresh each time: a fifth of the publish stage's page faults; docs/releases.md#determinism).
HASH_BATCH_ROWS = 8192


def _published_files(release: Path) -> list[Path]:
    return [
        p for p in sorted(release.rglob("*")) if p.is_file() and p.name != "manifest.json" and p.suffix != ".duckdb"
    ]


def file_sizes(release: Path) -> dict[str, int]:
    """Bytes of every file in `files`, by relative path."""
    return {str(p.relative_to(release)): p.stat().st_size for p in _published_files(release)}


def hash_files(release: Path, paths: Iterable[Path]) -> dict[str, str]:
    """sha256 of the given files of the release, by relative path (taken where they were written, so the
    manifest does not read them again)."""
    return {str(p.relative_to(release)): file_sha256(str(p)) for p in paths}


def file_hashes(release: Path, known: Mapping[str, str] | None = None) -> dict[str, str]:
    """sha256 of every file in the release but the manifest and the DuckDB file, by relative path; `known`:
    hashes already taken (the feed index's), not read again.

    DuckDB's file layout is not byte-stable from run to run; its contents are
    hashed table by table instead (`duckdb_contents_sha256`).
    """
    known = known or {}
    found = {}
    for path in _published_files(release):
        name = str(path.relative_to(release))
        found[name] = known[name] if name in known else file_sha256(str(path))
    return found


def duckdb_content_hashes(db_path: Path, reuse: TableReuse | None = None) -> dict[str, str]:
    """sha256 of each base table's rows (as text, sorted, one a line): equal contents, equal hash. `reuse`:
    the hash of a table whose Parquet file is a cached one's is taken from the cache, not computed again.

    Rows are streamed from DuckDB's sort into the hash batch by batch (the hash of
    `string_agg(row, chr(10) ORDER BY row)`, never that string itself).
    """
    with bounded_connect(db_path, read_only=True) as con:
        con.execute("SET enable_progress_bar = false")
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE table_name <> 'damage_matrix' ORDER BY 1"
            ).fetchall()
        ]
        if reuse is None:
            return {table: _table_hash(con, table) for table in tables}
        return {table: reuse.contents_hash(table, functools.partial(_table_hash, con, table)) for table in tables}


def _table_hash(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """The rows as text, sorted, each with a newline (added by Arrow, batch by batch) and hashed straight
    from Arrow's string buffers; the last newline is held back, so the hash is that of the rows joined by
    newlines, with no Python string per row."""
    digest, held = hashlib.sha256(), memoryview(b"")
    rows = con.sql(f"SELECT CAST(t AS VARCHAR) AS r FROM {table} t ORDER BY r")
    for batch in rows.to_arrow_reader(HASH_BATCH_ROWS):
        data = _utf8_bytes(pc.binary_join_element_wise(batch.column(0), "\n", ""))  # each row and its newline
        if data:
            digest.update(held)
            digest.update(data[:-1])
            held = data[-1:]
    return digest.hexdigest()


def _utf8_bytes(column: pa.Array) -> memoryview:
    """The bytes of a string column's values back to back (its data buffer between the first and last offset)."""
    if column.null_count:
        raise PublishError(f"{column.null_count} rows of a table have no text form")
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        column = column.cast(pa.large_string())
    if len(column) == 0:
        return memoryview(b"")
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    offsets = np.frombuffer(column.buffers()[1], dtype=width)[column.offset : column.offset + len(column) + 1]
    data = column.buffers()[2]
    return memoryview(data)[int(offsets[0]) : int(offsets[-1])] if data is not None else memoryview(b"")


def build_manifest(
    *,
    version: str,
    code_version: str,
    frames: Mapping[str, pl.DataFrame],
    row_counts: dict[str, int],
    schema_texts: dict[str, str],
    quality: dict[str, Any],
    reports: dict[str, Any],
    release: Path,
    publication: dict[str, Any] | None = None,
    changes: dict[str, Any] | None = None,
    site: dict[str, int] | None = None,
    known_hashes: Mapping[str, str] | None = None,
    table_hashes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The manifest document (deterministic: no clock, sorted keys). `publication`: the release's
    sequence number in its output folder and the release it was compared with (`outdir.Publication`);
    `changes`: rows added, removed and changed per table since that release; `site`: the explorer's pages and bytes;
    `known_hashes`: file hashes already taken; `table_hashes`: `duckdb_content_hashes` already computed."""
    sources = frames["sources"].drop("line").to_dicts() if "sources" in frames else []
    return {
        "version": version,
        "dataslate_version": code_version,
        "publication": publication or {"sequence": 1, "previous": None},
        "inputs": sources,
        "row_counts": dict(sorted(row_counts.items())),
        "schema_sha256": {t: hashlib.sha256(text.encode()).hexdigest() for t, text in sorted(schema_texts.items())},
        "quality": quality,
        "reports": reports,
        "files": file_hashes(release, known_hashes),
        "file_sizes": file_sizes(release),
        "changes": changes or {"against": None, "tables": {}},
        "site": site or {"pages": 0, "bytes": 0},
        "duckdb_contents_sha256": dict(table_hashes)
        if table_hashes is not None
        else duckdb_content_hashes(release / config.DUCKDB_FILENAME),
    }


def write_manifest(manifest: dict[str, Any], release: Path) -> None:
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"
    (release / "manifest.json").write_text(text)
