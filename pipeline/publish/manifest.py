"""`manifest.json`: what a release holds and where it came from, all hashed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline import config
from pipeline.ids import stored_file_sha256
from pipeline.publish.contents import Pieces, pieced_hash, table_hash
from pipeline.publish.table_reuse import TableReuse
from pipeline.store.bounded import bounded_connect


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
    return {str(p.relative_to(release)): stored_file_sha256(str(p)) for p in paths}


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
        found[name] = known[name] if name in known else stored_file_sha256(str(path))
    return found


def duckdb_content_hashes(
    db_path: Path, reuse: TableReuse | None = None, frames: Mapping[str, pl.DataFrame] | None = None
) -> dict[str, str]:
    """Each base table's contents hash (`contents.py`: its rows hashed one by one, the hashes sorted and hashed):
    equal contents, equal hash. `reuse`: the hash of a table whose Parquet file is a cached one's is taken from
    the cache; `frames` (the tables as loaded): a large table's pieces whose rows the cache holds are not hashed
    again (with `reuse`'s cache)."""
    with bounded_connect(db_path, read_only=True) as con:
        con.execute("SET enable_progress_bar = false")
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE table_name <> 'damage_matrix' ORDER BY 1"
            ).fetchall()
        ]
        if reuse is None:
            return {table: table_hash(con, table) for table in tables}
        return {table: reuse.contents_hash(table, _hasher(con, table, reuse, frames)) for table in tables}


def _hasher(
    con: duckdb.DuckDBPyConnection, table: str, reuse: TableReuse, frames: Mapping[str, pl.DataFrame] | None
) -> Callable[[], tuple[str, dict[int, str]]]:
    """How `table`'s hash is computed if the cache lacks it (with the keys of the pieces kept): by pieces when
    the table is large and there is a cache."""

    def compute() -> tuple[str, dict[int, str]]:
        frame = frames.get(table) if frames is not None and reuse.pieces.folder is not None else None
        pieces = Pieces.of(table, frame) if frame is not None else None
        if pieces is None:
            return table_hash(con, table), {}
        return pieced_hash(con, table, pieces, reuse.pieces), pieces.keys

    return compute


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
