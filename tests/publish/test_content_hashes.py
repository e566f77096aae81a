"""The manifest's table hashes equal the published SQL definition, computed whole or in pieces: a large table's
pieces are cached by their rows, and a changed row hashes its own piece again, nothing else."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.publish import contents
from pipeline.publish.contents import Pieces, contents_sql, piece_of, pieced_hash, table_hash
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.publish.table_reuse import PIECES_KIND, TableReuse

TABLES = {
    "big": "SELECT i, 'row ' || (i % 977) AS name, [i, NULL] AS xs FROM range(150000) r(i)",
    "empty": "SELECT 1 AS a WHERE false",
    "odd": "SELECT * FROM (VALUES (NULL, 'é\nline'), (2, ''), (2, 'a,b'), (2, 'a,b')) v(a, b)",
    "damage_matrix": "SELECT 1 AS cell",  # never hashed: it may be a view over ~200 M Parquet rows
}


def _sql_hash(db: Path, table: str) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        return str(con.execute(contents_sql(table)).fetchone()[0])  # type: ignore[index]


def test_hashes_equal_the_sql_definition(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    with duckdb.connect(str(db)) as con:
        for name, query in TABLES.items():
            con.execute(f"CREATE TABLE {name} AS {query}")
    expected = {name: _sql_hash(db, name) for name in TABLES if name != "damage_matrix"}
    assert duckdb_content_hashes(db) == expected
    assert expected["empty"] == hashlib.sha256(b"").hexdigest()
    row = "{'a': 2, 'b': 'a,b'}"  # a table of one row: the sha256 of the hex of its text's sha256
    assert hashlib.sha256(hashlib.sha256(row.encode()).hexdigest().encode()).hexdigest() == _one_row_hash(tmp_path)


def _one_row_hash(tmp_path: Path) -> str:
    db = tmp_path / "one.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE one AS SELECT 2 AS a, 'a,b' AS b")
        return table_hash(con, "one")


def _frame(units: int = 300, rows: int = 6000) -> pl.DataFrame:
    """Rows of `damage_vs_reference`'s first key column (`unit_id`), a float and a list: pieced by unit."""
    return pl.DataFrame(
        {
            "unit_id": [f"unit:{i % units}" for i in range(rows)],
            "weapon_id": [f"w{i}" for i in range(rows)],
            "damage": [i / 7 for i in range(rows)],
            "dist": [[i / 3, None] for i in range(rows)],
        }
    )


def _db(path: Path, frame: pl.DataFrame) -> Path:
    with duckdb.connect(str(path)) as con:
        con.register("frame", frame.to_arrow())
        con.execute("CREATE TABLE damage_vs_reference AS SELECT * FROM frame")
    return path


@pytest.fixture
def pieced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contents, "PIECED_MIN_ROWS", 100)


def _hash_in_pieces(db: Path, frame: pl.DataFrame, cache: PartCache) -> str:
    pieces = Pieces.of("damage_vs_reference", frame)
    assert pieces is not None
    with duckdb.connect(str(db), read_only=True) as con:
        return pieced_hash(con, "damage_vs_reference", pieces, cache)


def test_a_table_hashed_in_pieces_equals_it_hashed_whole(pieced: None, tmp_path: Path) -> None:
    frame = _frame()
    db = _db(tmp_path / "t.duckdb", frame)
    cache = PartCache(tmp_path / "cache", PIECES_KIND)
    assert _hash_in_pieces(db, frame, cache) == _sql_hash(db, "damage_vs_reference")
    assert len(cache.kept) == len({piece_of(f"unit:{i}") for i in range(300)}) > 40  # of 64 pieces
    assert Pieces.of("damage_vs_reference", frame.head(99)) is None  # too small: hashed whole


def test_a_changed_row_hashes_its_piece_again(pieced: None, tmp_path: Path) -> None:
    frame = _frame()
    cache = tmp_path / "cache"
    before = _hash_in_pieces(_db(tmp_path / "a.duckdb", frame), frame, PartCache(cache, PIECES_KIND))
    changed = frame.with_columns(damage=pl.when(pl.col("weapon_id") == "w4321").then(-0.0).otherwise("damage"))
    changed = changed.with_columns(damage=pl.when(pl.col("weapon_id") == "w0").then(-0.0).otherwise("damage"))
    db = _db(tmp_path / "b.duckdb", changed)
    again = PartCache(cache, PIECES_KIND)
    after = _hash_in_pieces(db, changed, again)
    assert after == _sql_hash(db, "damage_vs_reference") != before  # 0.0 became -0.0 in row w0: its text differs
    assert len(again.kept) == 2 and len(again.used) > 40  # w4321's piece and w0's, the others read back


def test_a_corrupt_piece_is_recomputed(pieced: None, tmp_path: Path) -> None:
    frame = _frame()
    db = _db(tmp_path / "t.duckdb", frame)
    cache = PartCache(tmp_path / "cache", PIECES_KIND)
    expected = _hash_in_pieces(db, frame, cache)
    blob = next((tmp_path / "cache").rglob("*.bin"))
    data = bytearray(blob.read_bytes())
    data[0] ^= 1
    blob.write_bytes(bytes(data))
    again = PartCache(tmp_path / "cache", PIECES_KIND)
    with pytest.warns(CacheWarning, match="missing or changed"):
        assert _hash_in_pieces(db, frame, again) == expected
    assert len(again.kept) == 1


def test_a_cached_table_hash_keeps_its_pieces(pieced: None, tmp_path: Path) -> None:
    frame = _frame()
    db = _db(tmp_path / "t.duckdb", frame)
    frames = {"damage_vs_reference": frame}
    first = TableReuse.of(tmp_path / "cache", {"damage_vs_reference": "parquet-sha"})
    expected = duckdb_content_hashes(db, first, frames)
    assert expected == {"damage_vs_reference": _sql_hash(db, "damage_vs_reference")}
    pieces = set(first.pieces.kept)
    second = TableReuse.of(tmp_path / "cache", {"damage_vs_reference": "parquet-sha"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert duckdb_content_hashes(db, second, frames) == expected
    assert second.pieces.used == pieces and not second.pieces.kept  # the whole hash read; its pieces kept
    assert second.prune() == 0
    without = TableReuse.of(None, {"damage_vs_reference": "parquet-sha"})
    assert duckdb_content_hashes(db, without, frames) == expected  # no cache: hashed whole


def test_null_keys_or_rows_not_the_frames_hash_the_table_whole(pieced: None, tmp_path: Path) -> None:
    frame = _frame()
    with_null = frame.with_columns(unit_id=pl.when(pl.col("weapon_id") == "w7").then(None).otherwise("unit_id"))
    assert Pieces.of("damage_vs_reference", with_null) is None  # a NULL key value is in no piece's values
    db = _db(tmp_path / "t.duckdb", frame)
    cache = PartCache(tmp_path / "cache", PIECES_KIND)
    assert _hash_in_pieces(db, frame.head(5999), cache) == _sql_hash(db, "damage_vs_reference")  # a row short
