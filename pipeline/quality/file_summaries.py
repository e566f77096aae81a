"""A summary query added up file by file: each file's summary rows are kept in the cache under the file's
sha256 (and those of the tables the query joins; every file of a suite in one entry), so a run that wrote a few
of the matrix's files again scans only those (docs/quality.md#summaries-by-file).

The query runs unchanged on a temporary view that shadows the relation on this connection only: the files to
scan, each file's path standing in for the first key column (a hive folder of the relation), so one scan
gives the rows of each file. The rows are then added up per key (the first column taken from each file's
folder), counts summed and NULL shares recomputed from their counts: the frame equals the query's on the
whole relation.
"""

from __future__ import annotations

import io
import itertools
import json
import warnings
from pathlib import Path, PurePosixPath

import duckdb
import pyarrow as pa

from pipeline.cache.entries import CacheWarning
from pipeline.cache.fingerprint import code_fingerprint, key_of
from pipeline.quality.batches import summary_query
from pipeline.quality.memo import QualityMemo, read_relations
from pipeline.quality.suites import FileSummarySpec, SuiteSpec

#: The name the files' rows are registered under while they are added up.
_PARTS = "file_summary_parts"

#: The bundle's metadata field: `[[file key, rows], ...]` in the order of its rows.
_KEYS = b"dataslate.file_keys"


def summary_by_file(
    con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str], memo: QualityMemo | None
) -> duckdb.DuckDBPyRelation | None:
    """The suite's summary, ordered as `summary_query` orders it, from each file's row (cached, or computed in
    one scan of the files without one); None when it cannot be added up here (no cache, no `by_file` in the
    suite, the relation is a table rather than a view over its files, or it has no files)."""
    spec = suite.summary_by_file
    if spec is None or memo is None or memo.by_file.folder is None or not _is_view(con, spec.relation):
        return None
    relations = read_relations(suite)
    files = memo.files(spec.relation)
    if relations is None or not files:
        return None
    joined = [f"{name}={sha}" for r in sorted(relations - {spec.relation}) for name, sha in memo.files(r)]
    keys = {name: key_of(code_fingerprint(), "quality_files", suite.table, sha, *joined) for name, sha in files}
    bundle = key_of(code_fingerprint(), "quality_files", "bundle", suite.table)
    held = _held(memo, bundle)
    rows = {name: held.get(key) for name, key in keys.items()}
    missing = [name for name, row in rows.items() if row is None]
    memo.files_read.update(keys[name] for name, row in rows.items() if row is not None)
    if missing:
        for name, row in _scan(con, suite, present, spec, missing).items():
            memo.files_summarised.add(keys[name])
            rows[name] = row
    by_key = {keys[name]: row for name, row in rows.items() if row is not None}
    if by_key.keys() != held.keys():
        memo.by_file.keep_bytes(bundle, _bundled(by_key))
    return _added_up(con, suite, spec, {name: row for name, row in rows.items() if row is not None})


def _is_view(con: duckdb.DuckDBPyConnection, relation: str) -> bool:
    found = con.execute(
        "SELECT table_type FROM information_schema.tables WHERE table_catalog = current_database()"
        " AND table_schema = 'main' AND table_name = ?",
        [relation],
    ).fetchall()
    return bool(found) and found[0][0] == "VIEW"


def _held(memo: QualityMemo, bundle: str) -> dict[str, pa.Table]:
    """The rows kept by the last run, by file key: one cache entry for every file of the suite (reading an
    entry per file cost more than scanning the few files that changed). A bundle that does not add up is
    ignored with a warning."""
    found = memo.by_file.get(bundle)
    if found is None:
        return {}
    try:
        table = pa.ipc.open_stream(found[0].read_bytes()).read_all()
        counts = json.loads((table.schema.metadata or {})[_KEYS])
        starts = itertools.accumulate((int(n) for _, n in counts), initial=0)
        held = {str(key): table.slice(start, int(n)) for (key, n), start in zip(counts, starts, strict=False)}
        if sum(int(n) for _, n in counts) != table.num_rows or len(held) != len(counts):
            raise ValueError("its counts do not add up to its rows")
    except (pa.ArrowException, OSError, KeyError, ValueError, TypeError) as exc:
        warnings.warn(f"cache file summaries ignored, recomputing: {found[0]}: {exc}", CacheWarning, stacklevel=2)
        return {}
    return {key: rows.replace_schema_metadata(None) for key, rows in held.items()}


def _bundled(rows: dict[str, pa.Table]) -> bytes:
    """Every file's rows in one Arrow IPC stream, with each file's key and row count in its metadata."""
    tables = [table.replace_schema_metadata(None) for table in rows.values()]
    counts = json.dumps([[key, table.num_rows] for key, table in rows.items()])
    table = pa.concat_tables(tables).combine_chunks().replace_schema_metadata({_KEYS: counts})  # one batch
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _scan(
    con: duckdb.DuckDBPyConnection, suite: SuiteSpec, present: set[str], spec: FileSummarySpec, names: list[str]
) -> dict[str, pa.Table]:
    """Each file's summary rows (none: a file without rows), from one run of the query over those files."""
    key = suite.summary_key[0]
    listed = ", ".join(_literal(name) for name in names)  # our own relative names, escaped all the same
    con.execute(
        f'CREATE OR REPLACE TEMP VIEW "{spec.relation}" AS SELECT * EXCLUDE (filename) REPLACE (filename AS "{key}")'
        f" FROM read_parquet([{listed}], hive_partitioning = true, filename = true)"
    )
    try:
        table = con.sql(summary_query(suite, present)).to_arrow_table()
    finally:
        con.execute(f'DROP VIEW temp."{spec.relation}"')
    by_tail = {PurePosixPath(name).parts: name for name in names}
    found: dict[str, list[int]] = {name: [] for name in names}
    for index, path in enumerate(table.column(key).to_pylist()):
        tail = Path(str(path)).parts[-len(next(iter(by_tail))) :]
        found[by_tail[tuple(tail)]].append(index)
    return {name: table.take(pa.array(indices, pa.int64())) for name, indices in found.items()}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _added_up(
    con: duckdb.DuckDBPyConnection, suite: SuiteSpec, spec: FileSummarySpec, rows: dict[str, pa.Table]
) -> duckdb.DuckDBPyRelation:
    """The files' rows summed per key (its first column from the file's hive folder `<key>=<value>`), in the
    query's types and order."""
    key, keys = suite.summary_key[0], suite.summary_key
    schema = next(iter(rows.values())).schema
    values = [_hive_value(name, key) for name, row in rows.items() for _ in range(row.num_rows)]
    parts = pa.concat_tables(list(rows.values())).set_column(
        schema.get_field_index(key), key, pa.array(values, pa.string())
    )
    columns = [f'"{name}"' if name in keys else _added(name, spec) for name in schema.names]
    grouped = ", ".join(f'"{c}"' for c in keys)
    con.register(_PARTS, parts)
    try:  # ordered as `summary_query` orders
        query = f"SELECT {', '.join(columns)} FROM {_PARTS} GROUP BY {grouped} ORDER BY {grouped} NULLS LAST"
        added = con.sql(query).to_arrow_table()
    finally:
        con.unregister(_PARTS)
    return con.from_arrow(added.cast(schema))


def _added(column: str, spec: FileSummarySpec) -> str:
    """How a column adds up: a NULL share from the counts behind it, any other column (a count) summed."""
    if column in spec.null_shares:
        total = f'sum("{spec.null_shares[column]}")'
        counted = f'sum(round("{spec.null_shares[column]}" * (1 - "{column}")))'
        return f'1 - CAST({counted} AS BIGINT) / CAST({total} AS BIGINT) AS "{column}"'
    return f'sum("{column}") AS "{column}"'


def _hive_value(name: str, key: str) -> str:
    """`<relation>/<key>=<value>/part.parquet` -> value."""
    for part in PurePosixPath(name).parts:
        if part.startswith(f"{key}="):
            return part[len(key) + 1 :]
    raise ValueError(f"{name}: no {key}= folder")
