"""The store, quality and publish connections: a bounded buffer pool that spills outside the release, and a
table's contents hash under it as under DuckDB's own limit."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.publish.contents import contents_sql
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.store import bounded
from pipeline.store.bounded import DUCKDB_MEMORY_BYTES, bounded_connect

#: Rows of the test table: ≈ 60 MB of text when cast and sorted, past the small limit below.
ROWS = 1_000_000


def _table(db_path: Path) -> None:
    con = duckdb.connect(str(db_path))
    try:
        con.execute(
            "CREATE TABLE t AS SELECT i, md5(i::VARCHAR) || repeat('x', (i % 13)::INTEGER) AS s FROM range(?) r(i)",
            [ROWS],
        )
    finally:
        con.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_the_connection_holds_the_limit_and_spills_outside_the_release(tmp_path: Path, read_only: bool) -> None:
    db_path = tmp_path / "release" / "store.duckdb"
    db_path.parent.mkdir()
    _table(db_path)
    with bounded_connect(db_path, read_only=read_only) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchone()
        spill = con.execute("SELECT current_setting('temp_directory')").fetchone()
    assert limit is not None and spill is not None
    assert limit[0] == "512.0 MiB" == f"{DUCKDB_MEMORY_BYTES / 2**20:.1f} MiB"
    assert not Path(spill[0]).is_relative_to(db_path.parent)
    assert not Path(spill[0]).exists()  # removed on close
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["store.duckdb"]


def test_a_table_past_the_limit_hashes_as_its_definition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db_path = tmp_path / "store.duckdb"
    _table(db_path)
    with duckdb.connect(str(db_path), read_only=True) as con:  # no limit: DuckDB's own default
        expected = con.execute(contents_sql("t")).fetchall()[0]
    monkeypatch.setattr(bounded, "DUCKDB_MEMORY_BYTES", 64 * 2**20)  # the text is ≈ 60 MB, its sort spills
    with bounded_connect(db_path, read_only=True) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchone()
        con.execute("SET enable_progress_bar = false")
        sorted_rows = con.sql("SELECT CAST(t AS VARCHAR) AS r FROM t ORDER BY r").to_arrow_reader(65536)
        sorted_rows.read_next_batch()
        spilled = con.cursor().execute("SELECT count(*) FROM duckdb_temporary_files()").fetchone()
        sorted_rows.close()
    assert limit is not None and limit[0] == "64.0 MiB"
    assert spilled is not None and spilled[0] > 0  # a sort of the rows' text would not fit
    assert expected is not None and duckdb_content_hashes(db_path) == {"t": expected[0]}
