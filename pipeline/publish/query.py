"""`dataslate sql` and every reader of a published release: a sandboxed, read-only DuckDB.

The sandbox is DuckDB's own configuration, locked before any query runs: no file
access outside the DuckDB file (so no COPY/EXPORT/ATTACH/read_csv/glob, and no spill
files), no extension install or load, no configuration change; `sql_limits` adds the
time and memory limits. The statement-type check only turns the obvious writes away
with a friendlier message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from pipeline import config
from pipeline.errors import PipelineError
from pipeline.publish.release import resolve_release
from pipeline.publish.sql_limits import CONTEXT, Deadline, SqlLimits, deadline, memory_ceiling, row_bytes

#: Rows fetched from DuckDB at a time; the time and memory limits are checked between batches.
FETCH_BATCH_ROWS = 1024


def _startup_config(limits: SqlLimits) -> dict[str, str | bool | int | float | list[str]]:
    """Settings given at connect. An empty temp_directory means no spilling: a read-only
    DuckDB file would otherwise spill into `<file>.tmp`, inside the release."""
    return {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": False,
        "allow_persistent_secrets": False,
        "python_enable_replacements": False,
        "temp_directory": "",
        "memory_limit": f"{limits.memory_bytes()}B",
        "threads": limits.threads,
    }


def open_release(release: Path, limits: SqlLimits | None = None) -> duckdb.DuckDBPyConnection:
    """A release's DuckDB, read-only and sandboxed, configuration locked.

    External access goes off after connecting (the temp directory cannot be set once it
    is off) and the configuration is locked last, so no statement can undo either.
    """
    limits = limits or SqlLimits()
    folder = resolve_release(release)
    con = duckdb.connect(str(folder / config.DUCKDB_FILENAME), read_only=True, config=_startup_config(limits))
    try:
        con.execute("SET enable_progress_bar = false")  # a client setting: results only, never a bar
        con.execute("SET enable_external_access = false")
        register_damage_matrix(con, folder)
        register_unit_matchups(con, folder)
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def register_damage_matrix(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    """Let a damage matrix published as a view (over the release's Parquet) resolve in the sandbox.

    The view reads files, which the sandbox forbids; DuckDB's `allowed_directories` would
    allow writing there too. Instead Python opens the Parquet files read-only (pyarrow) and
    registers them as a temporary `damage_matrix`, which shadows the view by name.
    """
    kinds = con.execute(
        "SELECT table_type FROM information_schema.tables "
        "WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = 'damage_matrix'"
    ).fetchall()
    matrix = folder / "damage_matrix"
    if kinds != [("VIEW",)] or not matrix.is_dir():
        return
    import pyarrow.dataset as ds

    con.register("damage_matrix", ds.dataset(matrix, format="parquet", partitioning="hive"))


def register_unit_matchups(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    """The same for `unit_matchups` (always a view over `unit_matchups/scenario=*/attacker_faction=*/`)."""
    kinds = con.execute(
        "SELECT table_type FROM information_schema.tables "
        "WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = 'unit_matchups'"
    ).fetchall()
    partitions = folder / "unit_matchups"
    if kinds != [("VIEW",)] or not partitions.is_dir():
        return
    import pyarrow as pa
    import pyarrow.dataset as ds

    hive = ds.partitioning(pa.schema([("scenario", pa.string()), ("attacker_faction", pa.string())]), flavor="hive")
    con.register("unit_matchups", ds.dataset(partitions, format="parquet", partitioning=hive))


#: Statement types `dataslate sql` runs; anything else is refused before it runs. This is a
#: courtesy, not the guarantee: `EXPLAIN ANALYZE COPY ... TO` is an EXPLAIN and still writes
#: where the sandbox allows it (it allows nothing).
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})


def refuse_writes(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Raise if any statement of `query` is not a read."""
    for statement in con.extract_statements(query):
        try:
            kind = statement.type.name
        except ValueError:  # a type the Python enum lacks (`UPDATE EXTENSIONS` in duckdb 2.0)
            kind = "unknown"
        if kind not in READ_STATEMENTS:
            raise PipelineError(f"the published dataset is read-only: {kind} statements are refused", context=CONTEXT)


def fetch_rows(
    con: duckdb.DuckDBPyConnection, query: str, limit: Deadline, max_bytes: int, max_rows: int | None = None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run `query` and fetch its rows in batches, within the time limit and `max_bytes`; at most
    `max_rows` rows (the rest is not fetched)."""
    con.execute(query)
    if con.description is None:
        return [], []
    columns = [d[0] for d in con.description]
    rows: list[tuple[Any, ...]] = []
    kept = 0
    while max_rows is None or len(rows) < max_rows:
        wanted = FETCH_BATCH_ROWS if max_rows is None else min(FETCH_BATCH_ROWS, max_rows - len(rows))
        batch = con.fetchmany(wanted)
        if not batch:
            break
        limit.check()
        kept += sum(map(row_bytes, batch))
        if kept > max_bytes:
            raise MemoryError
        rows += batch
    return columns, rows


def run_query(
    query: str, release: Path, limits: SqlLimits | None = None, max_rows: int | None = None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Columns and rows (at most `max_rows`) of a query run in the sandbox (see the module docstring)."""
    limits = limits or SqlLimits()
    max_bytes = limits.memory_bytes()
    con = open_release(release, limits)
    try:
        refuse_writes(con, query)
        with memory_ceiling(max_bytes), deadline(con, limits.timeout) as limit:
            return fetch_rows(con, query, limit, max_bytes, max_rows)
    except (duckdb.OutOfMemoryException, MemoryError) as exc:
        raise PipelineError(
            f"the query needs more than the memory limit ({limits.memory}, --memory)", context=CONTEXT
        ) from exc
    except duckdb.Error as exc:
        raise PipelineError(_explain(exc), context=CONTEXT) from exc
    finally:
        con.close()


#: DuckDB messages that mean the sandbox refused the statement.
REFUSALS = ("read-only", "disabled by configuration", "disabled through configuration", "configuration has been locked")


def _explain(exc: duckdb.Error) -> str:
    message = _first_line(exc)
    if isinstance(exc, duckdb.PermissionException) or any(r in message.lower() for r in REFUSALS):
        return "refused by the sandbox (read-only, no file access, settings locked): " + message
    return message


def _first_line(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__
