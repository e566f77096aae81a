"""`dataslate sql`: read-only SQL on a published release."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from pipeline import config
from pipeline.errors import PipelineError
from pipeline.publish.release import resolve_release
from pipeline.store.load import open_store


def open_release(release: Path) -> duckdb.DuckDBPyConnection:
    """Open a release's DuckDB read-only, with Parquet views resolving inside it."""
    return open_store(resolve_release(release) / config.DUCKDB_FILENAME)


#: Statement types `dataslate sql` runs. The read-only connection alone is not enough:
#: `ATTACH 'other.duckdb' (READ_WRITE)` would open another release for writing, and
#: `COPY ... TO` writes files. Anything else is refused before it runs.
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})


def refuse_writes(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Raise if any statement of `query` is not a read."""
    for statement in con.extract_statements(query):
        kind = statement.type.name
        if kind not in READ_STATEMENTS:
            raise PipelineError(
                f"the published dataset is read-only: {kind} statements are refused", context="dataslate sql"
            )


def run_query(query: str, release: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Columns and rows of a query; only reads run (see `READ_STATEMENTS`)."""
    con = open_release(release)
    try:
        refuse_writes(con, query)
        rel = con.sql(query)
        if rel is None:
            return [], []
        return list(rel.columns), rel.fetchall()
    except duckdb.Error as exc:
        message = str(exc).splitlines()[0]
        if "read-only" in message.lower():
            message = "the published dataset is read-only: " + message
        raise PipelineError(message, context="dataslate sql") from exc
    finally:
        con.close()
