"""What an unchanged table lets a run reuse: its feed file and its DuckDB contents' hash, found by the sha256 of
its Parquet file (docs/releases.md#unchanged-tables).

A table's Parquet bytes are a function of its rows (the writer is deterministic, and bytes that decode alike
are the same rows), and its NDJSON file and the hash of its rows in DuckDB are functions of those rows and the
code (libraries included, which the code fingerprint covers). So both are cached under the code fingerprint,
the table and its Parquet's sha256, and a run whose table hashes as a cached one's places or reads them
instead of writing and hashing them again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.cache.fingerprint import code_fingerprint, key_of
from pipeline.cache.parts import PartCache
from pipeline.ids import stored_file_sha256

#: Cache kinds (`<cache>/parts/<kind>/`).
FEED_KIND = "feed"
CONTENTS_KIND = "duckdb_contents"
#: ... and the row hashes of a large table's pieces (`contents.py`; here to keep the import one way).
PIECES_KIND = "contents_pieces"


@dataclass(frozen=True)
class TableReuse:
    """The sha256 of each `<table>.parquet` this run wrote, and the two caches keyed by them."""

    parquet: Mapping[str, str]
    feed: PartCache
    contents: PartCache
    pieces: PartCache  # a large table's pieces' row hashes (`contents.py`)

    @classmethod
    def of(cls, cache: Path | None, parquet: Mapping[str, str]) -> TableReuse:
        """`cache`: the run's cache folder (None: nothing is reused or kept)."""
        return cls(
            dict(parquet), PartCache(cache, FEED_KIND), PartCache(cache, CONTENTS_KIND), PartCache(cache, PIECES_KIND)
        )

    def key(self, kind: str, table: str) -> str | None:
        """The cache key of `table`'s `kind` entry (None: the table has no Parquet file this run)."""
        sha = self.parquet.get(table)
        return None if sha is None else key_of(code_fingerprint(), kind, table, sha)

    def feed_file(self, table: str, path: Path, write: Callable[[Path], str | None]) -> str:
        """`path` placed from the cache when `table` is unchanged, else written by `write` (and kept); its sha256
        (`write` returns it when it hashed what it wrote)."""
        key = self.key(FEED_KIND, table)
        placed = self.feed.place(key, path) if key is not None else None
        if placed is not None:
            return placed.sha256
        written = write(path)
        if key is not None:
            return self.feed.keep(key, path, sha256=written).sha256
        return written if written is not None else stored_file_sha256(str(path))

    def contents_hash(self, table: str, compute: Callable[[], tuple[str, dict[int, str]]]) -> str:
        """The hash of `table`'s rows in DuckDB: the cached one when `table` is unchanged, else `compute()` (the
        hash, and the key of each piece it hashed: `contents.py`). A cached hash keeps its pieces in the cache
        too, for the run that changes a few of their rows."""
        key = self.key(CONTENTS_KIND, table)
        found = self.contents.get(key) if key is not None else None
        if found is not None:
            self.pieces.claim(str(k) for k in dict(found[1].meta.get("pieces") or {}).values())
            return found[0].read_text(encoding="ascii")
        digest, pieces = compute()
        if key is not None:
            self.contents.keep_bytes(key, digest.encode("ascii"), {"pieces": pieces} if pieces else None)
        return digest

    def pieces_of(self, table: str, parquet_sha256: str) -> dict[int, str] | None:
        """The key of each piece of `table` as it was when its Parquet file hashed `parquet_sha256` (a previous
        release's), from that table's cached contents hash; None if the cache has none (`contents.py`)."""
        meta = self.contents.meta(key_of(code_fingerprint(), CONTENTS_KIND, table, parquet_sha256))
        pieces = (meta or {}).get("pieces")
        return {int(p): str(k) for p, k in pieces.items()} if isinstance(pieces, dict) else None

    @property
    def feed_files(self) -> tuple[int, int]:
        """Feed files written by this run, and placed from the cache (its tables unchanged)."""
        placed = len(self.feed.used - self.feed.kept)
        return len(self.parquet) - placed, placed

    def prune(self) -> int:
        """Drop the cached feed files, hashes and pieces' row hashes this run did not use (after it published)."""
        return self.feed.prune() + self.contents.prune() + self.pieces.prune()
