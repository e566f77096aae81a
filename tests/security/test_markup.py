"""A release built from inputs with markup and entities in every kind of text field of every format
(`markup_inputs.py`): no plain-text column of any table carries markup, in any published format; the
`*_html` columns hold only the allow-listed bare tags; the quality page loads nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from pipeline import config
from pipeline.normalise.html import ALLOWED_TAGS
from pipeline.normalise.markup import has_markup
from pipeline.run import run_pipeline
from pipeline.sources.accounting import MAX_RAW
from tests.security.markup_inputs import MARK, bsdata_with_markup, pages_with_markup, wahapedia_with_markup

pytestmark = pytest.mark.slow  # a release of three formats, quality gates included

#: Columns that keep markup by design: the input as it was.
RAW = {("quarantine", "raw")}
#: Columns the payload must reach (checked by hand on the fixture): proof the test can fail.
REACHED = {
    ("abilities", "name"),
    ("abilities", "text"),
    ("datasheets", "name"),
    ("datasheets", "faction"),
    ("datasheets", "legend"),
    ("detachment_abilities", "name"),
    ("enhancements", "name"),
    ("enhancements", "text"),
    ("keywords", "keyword"),
    ("model_profiles", "name"),
    ("model_profiles", "keywords"),
    ("points", "description"),
    ("quarantine", "reason"),
    ("rules", "title"),
    ("rules", "body"),
    ("stratagems", "name"),
    ("stratagems", "when"),
    ("stratagems", "target"),
    ("stratagems", "effect"),
    ("unit_composition", "text"),
    ("units", "name"),
    ("wargear_options", "text"),
    ("weapon_abilities", "raw"),
    ("weapons", "name"),
}
_TAG = re.compile(r"</?([a-z]+)>")


@pytest.fixture(scope="module")
def release(wahapedia_dir: Path, bsdata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markup")
    inputs = [
        pages_with_markup(root / "pages"),
        wahapedia_with_markup(wahapedia_dir, root / "wahapedia"),
        bsdata_with_markup(bsdata_dir, root / "bsdata"),
    ]
    return run_pipeline(inputs, root / "out").release


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def _parsed(value: Any) -> Any:
    """JSON text cells (`provenance`, `values`) as their values."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _columns(release: Path) -> dict[tuple[str, str], list[str]]:
    """Every text of every column of every table's Parquet file."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(release.glob("*.parquet")):
        frame = pl.read_parquet(path)
        for column in frame.columns:
            found[(path.stem, column)] = [s for v in frame[column].to_list() for s in _strings(_parsed(v))]
    return found


def _plain(table: str, column: str) -> bool:
    return (table, column) not in RAW and not column.endswith("_html")


def test_no_plain_text_column_of_any_table_carries_markup(release: Path) -> None:
    columns = _columns(release)
    assert len({table for table, _ in columns}) >= 23
    marked = {key: [v for v in values if has_markup(v)][:3] for key, values in columns.items() if _plain(*key)}
    assert {key: values for key, values in marked.items() if values} == {}


def test_the_payload_reached_the_columns_it_was_put_in(release: Path) -> None:
    reached = {key for key, values in _columns(release).items() if any(MARK in v for v in values)}
    assert sorted(REACHED - reached) == []


def test_the_feed_and_faction_documents_carry_no_markup(release: Path) -> None:
    for path in sorted((release / "feed").rglob("*.json*")):
        lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".ndjson" else [path.read_text()]
        for line in lines:
            document = json.loads(line)
            if path.name == "quarantine.ndjson":
                document.pop("raw")
            texts = [s for s in _strings(_without_html(document)) if has_markup(s)]
            assert texts == [], path


def _without_html(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_html(_parsed(v)) for k, v in value.items() if not k.endswith("_html")}
    if isinstance(value, list):
        return [_without_html(v) for v in value]
    return value


def test_the_duckdb_tables_carry_no_markup(release: Path) -> None:
    con = duckdb.connect(str(release / config.DUCKDB_FILENAME), read_only=True)
    try:
        columns = con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE data_type IN ('VARCHAR', 'VARCHAR[]')"
            " AND table_name IN (SELECT table_name FROM duckdb_tables())"
        ).fetchall()
        for table, column in columns:
            if not _plain(table, column):
                continue
            text = f'CAST("{column}" AS VARCHAR)'
            query = f"SELECT count(*) FROM \"{table}\" WHERE regexp_matches({text}, '<[A-Za-z/!?]')"
            assert con.execute(query).fetchone() == (0,), (table, column)
    finally:
        con.close()


def test_html_columns_hold_only_bare_allow_listed_tags(release: Path) -> None:
    seen = 0
    for (table, column), values in _columns(release).items():
        if not column.endswith("_html"):
            continue
        for value in values:
            seen += MARK in value
            assert {tag for tag in _TAG.findall(value)} <= ALLOWED_TAGS, (table, column, value)
            assert "<" not in _TAG.sub("", value), (table, column, value)
    assert seen > 0


def test_quarantine_keeps_the_raw_input_cut_at_max_raw(release: Path) -> None:
    raws = pl.read_parquet(release / "quarantine.parquet")["raw"].to_list()
    assert any("<img src=x onerror=alert(1)>" in raw for raw in raws)
    assert max(len(raw) for raw in raws) <= MAX_RAW + 3


def test_the_quality_page_runs_and_loads_nothing(release: Path) -> None:
    page = (release / "quality" / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"<(script|img|iframe|object|embed|link)\b", page, re.IGNORECASE)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert not [p for p in release.rglob("*.html") if p.name != "index.html"]
