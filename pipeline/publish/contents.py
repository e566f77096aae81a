"""`duckdb_contents_sha256`: a hash of each table's rows that equal contents share, whatever the row order and
the file layout, and that a large table whose rows barely changed gets without hashing every row again
(docs/releases.md#contents-hashes).

The definition (one SQL query, `contents_sql`): each row cast to text and hashed (sha256, lowercase hex), the
hashes sorted and joined, and the sha256 of that. Rows are hashed one by one rather than sorted as text, so a
table can be hashed in pieces: a large table's rows are cut by their first key column into `PIECES` pieces,
each piece's row hashes are cached under a digest of its rows, and a run hashes again only the rows of the
pieces that changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.cache.fingerprint import code_fingerprint, key_of, row_hashes
from pipeline.cache.parts import PartCache
from pipeline.errors import PublishError
from pipeline.publish.table_reuse import PIECES_KIND
from pipeline.store.ddl import MODEL_BY_TABLE, quoted

#: Tables of at least this many rows are hashed in pieces (on the shared corpora `damage_vs_reference` and
#: `unit_vs_reference`, ≈ 600 k rows each; every other table has under 62 k).
PIECED_MIN_ROWS = 100_000

#: Pieces of such a table: a fixed number, so that a row added or removed moves no other row's piece.
PIECES = 64

#: Bytes of one row's hash.
_DIGEST = 32

#: The name the pieces' key values are registered under on the connection while their rows are read.
_CHOSEN = "dataslate_contents_pieces"


def contents_sql(table: str) -> str:
    """The definition as one query (what a user runs to check a manifest's value)."""
    return (
        "SELECT sha256(coalesce(string_agg(h, '' ORDER BY h), '')) "
        f"FROM (SELECT sha256(CAST(t AS VARCHAR)) AS h FROM {quoted(table)} t)"
    )


def table_hash(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """The contents hash of a whole table, every row hashed."""
    rows = con.sql(f"SELECT unhex(sha256(CAST(t AS VARCHAR))) AS d FROM {quoted(table)} t").to_arrow_table()
    return combine([_digest_bytes(rows.column("d"))])


def combine(parts: list[bytes]) -> str:
    """sha256 over the row hashes of every part, sorted and joined as hex (`contents_sql`). NumPy sorts fixed-width
    bytes as `memcmp` does (a value's trailing NUL bytes are padding, and NUL is the least byte)."""
    joined = b"".join(parts)
    if len(joined) % _DIGEST:
        raise PublishError(f"row hashes of {len(joined)} bytes, not a multiple of {_DIGEST}")
    ordered = np.sort(np.frombuffer(joined, dtype=f"S{_DIGEST}")).tobytes()
    return hashlib.sha256(ordered.hex().encode("ascii")).hexdigest()


def _digest_bytes(column: pa.ChunkedArray) -> bytes:
    """A column of row hashes (BLOBs of 32 bytes) as their bytes back to back."""
    array = column.combine_chunks()
    if array.null_count:
        raise PublishError(f"{array.null_count} rows of a table have no text form")
    if len(array) == 0:
        return b""
    array = array.cast(pa.large_binary())
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + len(array) + 1]
    data = array.buffers()[2]
    if data is None or int(offsets[-1]) - int(offsets[0]) != _DIGEST * len(array):
        raise PublishError("a row hash is not 32 bytes")
    return bytes(memoryview(data)[int(offsets[0]) : int(offsets[-1])])


@dataclass(frozen=True)
class Pieces:
    """A large table's rows cut by their first key column: each key value's piece, and each piece's cache key
    (a digest of its rows as the frame holds them, which the DuckDB table was loaded from)."""

    column: str
    of_value: pa.Table  # `value` (the key column's values), `piece`
    keys: dict[int, str]  # piece -> cache key, for the pieces with rows
    rows: int

    @classmethod
    def of(cls, table: str, frame: pl.DataFrame) -> Pieces | None:
        """The pieces of `table`'s frame, or None: too small to be worth it, or no key to cut by (a NULL key
        value would match no piece's values in SQL)."""
        model = MODEL_BY_TABLE.get(table)
        if model is None or not model.KEY or frame.height < PIECED_MIN_ROWS or frame[model.KEY[0]].null_count():
            return None
        column = model.KEY[0]
        values = frame[column].unique(maintain_order=True)
        piece_values = pl.Series("piece", [piece_of(v) for v in values.to_list()], dtype=pl.Int32)
        pieces = frame[column].replace_strict(values, piece_values, return_dtype=pl.Int32).to_numpy()
        hashes = row_hashes(frame).to_numpy()
        order = np.argsort(pieces, kind="stable")
        bounds = np.searchsorted(pieces[order], np.arange(PIECES + 1))
        schema = repr(frame.schema).encode()
        keys = {}
        for piece in range(PIECES):
            rows = hashes[order[bounds[piece] : bounds[piece + 1]]]
            if len(rows):
                digest = hashlib.sha256(schema + rows.tobytes()).hexdigest()
                keys[piece] = key_of(code_fingerprint(), PIECES_KIND, table, piece, digest)
        return cls(column, pa.table({"value": values.to_arrow(), "piece": piece_values.to_arrow()}), keys, frame.height)


def piece_of(value: object) -> int:
    """The piece of a key value: its text's sha256 (the same in every process), modulo PIECES."""
    return int.from_bytes(hashlib.sha256(str(value).encode()).digest()[:8], "big") % PIECES


def changed_pieces(before: dict[int, str], after: dict[int, str]) -> set[int]:
    """The pieces whose rows differ between two versions of a table (a piece with rows in one of them only too)."""
    return {piece for piece in before.keys() | after.keys() if before.get(piece) != after.get(piece)}


def rows_in_pieces(frame: pl.DataFrame, column: str, pieces: set[int]) -> pl.DataFrame:
    """The rows of `frame` whose `column` value lies in one of `pieces`."""
    values = frame[column].unique()
    chosen = [value for value in values.to_list() if piece_of(value) in pieces]
    return frame.filter(pl.col(column).is_in(pl.Series(chosen, dtype=values.dtype)))


def pieced_hash(con: duckdb.DuckDBPyConnection, table: str, pieces: Pieces, cache: PartCache) -> str:
    """The contents hash of a large table: each piece's row hashes from the cache, the others computed and kept
    (the table hashed whole should their rows not add up to the frame's)."""
    found: dict[int, bytes] = {}
    for piece, key in pieces.keys.items():
        hit = cache.get(key)
        if hit is not None:
            found[piece] = hit[0].read_bytes()
    missing = sorted(set(pieces.keys) - set(found))
    if missing:
        computed = _piece_digests(con, table, pieces, missing)
        for piece in missing:
            cache.keep_bytes(pieces.keys[piece], computed[piece])
        found.update(computed)
    if sum(len(found[piece]) for piece in found) != _DIGEST * pieces.rows:
        return table_hash(con, table)
    return combine([found[piece] for piece in sorted(found)])


def _piece_digests(con: duckdb.DuckDBPyConnection, table: str, pieces: Pieces, wanted: list[int]) -> dict[int, bytes]:
    """The row hashes of the `wanted` pieces, read from DuckDB: the rows of those pieces' key values only (every
    row when every piece is wanted, as in a run without cached pieces)."""
    chosen = pieces.of_value.filter(pc.is_in(pieces.of_value.column("piece"), pa.array(wanted, pa.int32())))
    column = quoted(pieces.column)
    where = "" if len(chosen) == len(pieces.of_value) else f" WHERE t.{column} IN (SELECT value FROM {_CHOSEN})"
    cursor = con.cursor()
    try:
        cursor.register(_CHOSEN, chosen)
        rows = cursor.sql(
            f"SELECT t.{column} AS v, unhex(sha256(CAST(t AS VARCHAR))) AS d FROM {quoted(table)} t{where}"
        ).to_arrow_table()
    finally:
        cursor.close()
    piece = pl.Series("v", rows.column("v")).replace_strict(
        pl.Series("value", chosen.column("value")), pl.Series("piece", chosen.column("piece")), return_dtype=pl.Int32
    )
    order = np.argsort(piece.to_numpy(), kind="stable")
    data = np.frombuffer(_digest_bytes(rows.column("d")), dtype=f"S{_DIGEST}")[order].tobytes()
    bounds = np.searchsorted(piece.to_numpy()[order], np.asarray([*wanted, PIECES], dtype=np.int32))
    return {p: data[_DIGEST * int(bounds[i]) : _DIGEST * int(bounds[i + 1])] for i, p in enumerate(wanted)}
