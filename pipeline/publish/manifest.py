"""`manifest.json`: what a release holds and where it came from, all hashed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline import config
from pipeline.ids import file_sha256


def _published_files(release: Path) -> list[Path]:
    return [
        p for p in sorted(release.rglob("*")) if p.is_file() and p.name != "manifest.json" and p.suffix != ".duckdb"
    ]


def file_sizes(release: Path) -> dict[str, int]:
    """Bytes of every file in `files`, by relative path."""
    return {str(p.relative_to(release)): p.stat().st_size for p in _published_files(release)}


def file_hashes(release: Path) -> dict[str, str]:
    """sha256 of every file in the release but the manifest and the DuckDB file, by relative path.

    DuckDB's file layout is not byte-stable from run to run; its contents are
    hashed table by table instead (`duckdb_contents_sha256`).
    """
    return {str(p.relative_to(release)): file_sha256(str(p)) for p in _published_files(release)}


def duckdb_content_hashes(db_path: Path) -> dict[str, str]:
    """sha256 of each base table's rows (as text, sorted): equal contents, equal hash."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE table_name <> 'damage_matrix' ORDER BY 1"
            ).fetchall()
        ]
        hashes = {}
        for table in tables:
            row = con.execute(
                f"SELECT sha256(coalesce(string_agg(CAST(t AS VARCHAR), chr(10) ORDER BY CAST(t AS VARCHAR)), ''))"
                f" FROM {table} t"
            ).fetchall()
            hashes[table] = str(row[0][0])
        return hashes
    finally:
        con.close()


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
) -> dict[str, Any]:
    """The manifest document (deterministic: no clock, sorted keys). `publication`: the release's
    sequence number in its output folder and the release it was compared with (`outdir.Publication`);
    `changes`: rows added, removed and changed per table since that release."""
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
        "files": file_hashes(release),
        "file_sizes": file_sizes(release),
        "changes": changes or {"against": None, "tables": {}},
        "duckdb_contents_sha256": duckdb_content_hashes(release / config.DUCKDB_FILENAME),
    }


def write_manifest(manifest: dict[str, Any], release: Path) -> None:
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"
    (release / "manifest.json").write_text(text)
