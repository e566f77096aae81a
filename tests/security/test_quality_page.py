"""The quality page (`quality/index.html`, which replaced GX Data Docs): every value from the data is
escaped, nothing is loaded from anywhere, and a name that trips a warning shows as text."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.quality.page import render_page
from pipeline.quality.report import ExpectationOutcome, QualityReport, TableReport
from tests.publish.releases import invoke
from tests.quality.conftest import good_records, store_release

INJECTED = "<img src=x onerror=alert(1)>"
#: Every element the page may hold, and the attributes they may carry.
ELEMENTS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "small", "p", "table", "tr", "th", "td"}
ELEMENTS |= {"pre"}
ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "id"}


class _Elements(HTMLParser):
    """Start tags and attributes of a page, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


def _hostile_report() -> QualityReport:
    """A report with markup in every value a page shows: table, label, samples, rows, observed, error, notes."""
    failed = ExpectationOutcome(
        expectation=f"expect_column_values_to_be_unique(name {INJECTED})",
        severity="warning",
        success=False,
        element_count=2,
        unexpected_count=2,
        unexpected_sample=[INJECTED, "</pre><script>alert(2)</script>"],
        unexpected_rows=[{"datasheet_id": "d1", "name": INJECTED}, {f"<b onclick=x>{INJECTED}": '"><svg onload=x>'}],
        observed_value={"<a href=https://evil.example/>": "<link rel=stylesheet href=//evil.example/x.css>"},
        notes="<iframe src=https://evil.example/></iframe>",
    )
    broken = ExpectationOutcome(
        expectation="expect_x",
        severity="critical",
        success=False,
        error='<object data="javascript:alert(3)">',
    )
    return QualityReport(tables=[TableReport(f"datasheets{INJECTED}", "ok", 2, (failed, broken))])


def test_every_value_is_escaped_and_the_page_loads_nothing() -> None:
    page = render_page(_hostile_report().to_dict())
    parsed = _parse(page)
    assert {tag for tag, _ in parsed.tags} <= ELEMENTS
    assert {name for _, attrs in parsed.tags for name, _ in attrs} <= ATTRIBUTES
    values = [value or "" for _, attrs in parsed.tags for name, value in attrs if name != "content"]
    assert not [v for v in values if "//" in v or "javascript:" in v]
    text = "".join(parsed.text)
    for shown in (
        INJECTED,
        "</pre><script>alert(2)</script>",
        '"><svg onload=x>',
        '<object data="javascript:alert(3)">',
    ):
        assert shown in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_page_forbids_loading_and_running_anything() -> None:
    parsed = _parse(render_page(_hostile_report().to_dict()))
    policies = [dict(attrs).get("content") for tag, attrs in parsed.tags if dict(attrs).get("http-equiv")]
    assert policies == ["default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"]


def test_the_same_report_gives_the_same_bytes(tmp_path: Path) -> None:
    first = _hostile_report().write(tmp_path / "a") / "index.html"
    second = _hostile_report().write(tmp_path / "b") / "index.html"
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.slow
def test_a_name_that_trips_a_warning_is_shown_escaped(tmp_path: Path) -> None:
    """The issue's attack on a real store and the real suites: two datasheets of one source and faction
    named like an image with an event handler trip the warning-level uniqueness check (the names are
    written into the store directly: the pipeline strips them, a release from another tool may not)."""
    release = store_release(good_records(), tmp_path / "release")
    con = duckdb.connect(str(release / config.DUCKDB_FILENAME))
    try:
        con.execute(
            "UPDATE datasheets SET name = ? WHERE datasheet_id = (SELECT min(datasheet_id) FROM datasheets)", [INJECTED]
        )
        twin = "SELECT * REPLACE (datasheet_id || '-twin' AS datasheet_id) FROM datasheets WHERE name = ?"
        con.execute(f"CREATE TABLE twin AS {twin}", [INJECTED])
        con.execute("INSERT INTO datasheets SELECT * FROM twin; DROP TABLE twin")
    finally:
        con.close()
    (release / "manifest.json").write_text("{}")
    assert invoke("quality", "--release", release, "--report", tmp_path / "report").exit_code == 0
    quality = tmp_path / "report" / "quality"
    outcomes = json.loads((quality / "summary.json").read_text())["tables"]["datasheets"]["expectations"]
    unique = next(
        o for o in outcomes if o["expectation"] == "expect_compound_columns_to_be_unique(source_id, faction, name)"
    )
    assert (unique["success"], unique["severity"], unique["unexpected_count"]) == (False, "warning", 2)
    assert {row["name"] for row in unique["unexpected_rows"]} == {INJECTED}
    page = (quality / "index.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<img" not in page
    assert INJECTED in "".join(_parse(page).text)
