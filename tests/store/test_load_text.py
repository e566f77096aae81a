"""`load_duckdb` hands Polars' text to DuckDB as Arrow string views (no copy): every string reads back as it
was, whether a view holds it inline (12 bytes or fewer) or in a buffer, in text and in lists of text."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from pipeline.frame_types import table_schema
from pipeline.store import load_duckdb
from pipeline.store.ddl import MODEL_BY_TABLE

TEXTS = [
    "",  # empty
    "Lance",  # inline
    "twelve bytes",  # exactly 12 bytes: the last inline length
    "thirteen byte",  # 13: the first in a buffer
    "Blessings of Khorne — “Rage” ∞",  # multi-byte UTF-8
    "x" * 5000,  # long
    "tab\tand\nnewline",
    "null\x00byte",
]


def _rules() -> pl.DataFrame:
    n = len(TEXTS)
    values = {
        "rule_id": [f"rule:{i:02d}" for i in range(n)],
        "title": TEXTS,
        "body": TEXTS[::-1],
        "content_hash": [f"{i:064x}" for i in range(n)],
        "variant_of": [None, *[f"rule:{i:02d}" for i in range(n - 1)]],
        "kind": ["rule"] * n,
        "occurrences": [1] * n,
        "summary": [TEXTS[: i % 4] for i in range(n)],
        "examples": [[]] * n,
        "source_id": ["test"] * n,
        "line": list(range(1, n + 1)),
    }
    schema = table_schema(MODEL_BY_TABLE["rules"])
    return pl.DataFrame(values).select(
        [pl.col(c).cast(t) if c in values else pl.lit(None, t).alias(c) for c, t in schema.items()]
    )


def test_text_reads_back_as_it_was(tmp_path: Path) -> None:
    frame = _rules()
    assert frame.to_arrow(compat_level=pl.CompatLevel.newest()).schema.field("title").type == "string_view"
    load_duckdb({"rules": frame}, tmp_path / "store.duckdb")
    with duckdb.connect(str(tmp_path / "store.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT rule_id, title, body, variant_of, summary FROM rules ORDER BY rule_id").fetchall()
    assert [r[1] for r in rows] == TEXTS
    assert [r[2] for r in rows] == TEXTS[::-1]
    assert [r[3] for r in rows] == frame["variant_of"].to_list()
    assert [r[4] for r in rows] == [TEXTS[: i % 4] for i in range(len(TEXTS))]
