"""Every known way to write, read outside, or reconfigure through `dataslate sql`, as templates.

`{release}` and `{root}` are filled with `sql_text` paths (quotes doubled), so each attack is
valid SQL even in the lab's folders named like SQL. `refused_as` is the statement kind the
friendly check names; None means the statement passes that check and only the sandbox stops it.
`effect` says what the attack does without the sandbox (test_sql_sandbox checks the writes, reads
and configuration changes on a plain read-only connection, as `dataslate sql` had).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Attack:
    sql: str
    refused_as: str | None
    effect: Literal[
        "writes",
        "reads",
        "reconfigures",
        "plans a write",
        "installs",
        "writes to HOME",
        "undoes the sandbox",
        "attaches",
        "changes the DuckDB file",
    ]

    def format(self, release: str, root: str) -> str:
        return self.sql.format(release=release, root=root)


FEED = "{release}/feed/datasheets.ndjson"
MATRIX_FILE = "{release}/damage_matrix/scenario=default/part-00000.parquet"

ATTACKS: dict[str, Attack] = {
    # files written by COPY, whatever the statement around it
    "copy outside": Attack("COPY (SELECT * FROM weapons) TO '{root}/PWNED.csv'", "COPY", "writes"),
    "copy relative": Attack("COPY (SELECT 42 AS a) TO 'PWNED.csv'", "COPY", "writes"),
    "copy over the feed": Attack(f"COPY (SELECT 'pwned' AS faction) TO '{FEED}' (FORMAT json)", "COPY", "writes"),
    "explain copy": Attack(
        f"EXPLAIN COPY (SELECT 'pwned' AS faction) TO '{FEED}' (FORMAT json)", None, "plans a write"
    ),
    "explain analyze copy over the feed": Attack(
        f"EXPLAIN ANALYZE COPY (SELECT 'pwned' AS faction) TO '{FEED}' (FORMAT json)", None, "writes"
    ),
    "explain analyze copy over units.parquet": Attack(
        "EXPLAIN ANALYZE COPY (SELECT 'pwned' AS unit_id) TO '{release}/units.parquet' (FORMAT parquet)",
        None,
        "writes",
    ),
    "explain analyze copy over the damage matrix": Attack(
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS damage) TO '{MATRIX_FILE}' (FORMAT parquet)", None, "writes"
    ),
    "export database": Attack("EXPORT DATABASE '{root}/export'", "EXPORT", "writes"),
    # DuckDB's own log, profile and extension files
    "file logging": Attack(
        "CALL enable_logging(storage = 'file', storage_path = '{root}/duckdb-log')", None, "reconfigures"
    ),
    "profiling": Attack("PRAGMA enable_profiling", None, "reconfigures"),
    "profile output": Attack("PRAGMA profiling_output = '{root}/profile.txt'", "SET", "reconfigures"),
    "install": Attack("INSTALL httpfs", "LOAD", "installs"),
    "update extensions": Attack("UPDATE EXTENSIONS", "unknown", "installs"),
    "load a file": Attack("LOAD '{root}/evil.duckdb_extension'", "LOAD", "installs"),
    "persistent secret": Attack("CREATE PERSISTENT SECRET s (TYPE http)", "CREATE", "writes to HOME"),
    # other databases
    "attach": Attack("ATTACH '{root}/new.duckdb' AS other", "ATTACH", "attaches"),
    # configuration
    "external access on": Attack("SET enable_external_access = true", "SET", "undoes the sandbox"),
    "unlock": Attack("SET lock_configuration = false", "SET", "undoes the sandbox"),
    "pragma memory": Attack("PRAGMA memory_limit = '100GB'", "SET", "reconfigures"),
    "reset threads": Attack("RESET threads", "SET", "reconfigures"),
    # files outside the release
    "read_csv": Attack("SELECT * FROM read_csv('/etc/passwd')", None, "reads"),
    "read_text": Attack("SELECT content FROM read_text('/etc/passwd')", None, "reads"),
    "read_blob": Attack("SELECT content FROM read_blob('/etc/passwd')", None, "reads"),
    "glob": Attack("SELECT * FROM glob('/*')", None, "reads"),
    # the DuckDB file itself
    "create table": Attack("CREATE TABLE scratch AS SELECT 1 AS a", "CREATE", "changes the DuckDB file"),
    "insert": Attack("INSERT INTO points SELECT * FROM points", "INSERT", "changes the DuckDB file"),
    "update": Attack("UPDATE points SET cost = 1", "UPDATE", "changes the DuckDB file"),
    "delete after a select": Attack("SELECT 1; DELETE FROM points", "DELETE", "changes the DuckDB file"),
    "drop": Attack("DROP TABLE weapons", "DROP", "changes the DuckDB file"),
}
