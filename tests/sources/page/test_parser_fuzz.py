"""Fuzz: mutated and truncated copies of the seeds never crash the parser and never lose
text — every non-empty line is accounted for (record, furniture, duplicate or quarantine)
and the fragments of every line join back to the line. Bytes that are not UTF-8 cost
exactly their own line, quarantined with the bytes escaped."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.sources.page.parser import INTERNAL_ERROR, INVALID_UTF8, PageParse, parse_page_bytes, parse_page_text
from schemas.records import QuarantineRow
from tests.conftest import AVENGER, INVOCATUS, WAZDAKKA

SEED_TEXTS = {p.name: p.read_text(encoding="utf-8") for p in (WAZDAKKA, AVENGER, INVOCATUS)}
#: Characters that mean something to the format, mixed with arbitrary ones.
STRUCTURAL = [*'|:-–.[]"’ \t\r\nCPx0123456789', "CP", ": ", "- ", "WHEN: ", "Example: "]
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _edit(draw: st.DrawFn, line: str) -> str:
    pos = draw(st.integers(0, len(line)))
    piece = draw(st.sampled_from(STRUCTURAL) | st.characters(exclude_categories=["Cs"]))
    action = draw(st.sampled_from(["insert", "replace", "delete"]))
    if action == "insert":
        return line[:pos] + piece + line[pos:]
    if action == "replace":
        return line[:pos] + piece + line[pos + 1 :]
    return line[:pos] + line[pos + 1 :]


@st.composite
def mutated_page(draw: st.DrawFn) -> str:
    lines = SEED_TEXTS[draw(st.sampled_from(sorted(SEED_TEXTS)))].split("\n")
    for _ in range(draw(st.integers(1, 15))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "edit", "edit"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines[i] = _edit(draw, lines[i])
    return "\n".join(lines)


@st.composite
def truncated_page(draw: st.DrawFn) -> str:
    text = SEED_TEXTS[draw(st.sampled_from(sorted(SEED_TEXTS)))]
    return text[: draw(st.integers(0, len(text)))]


def assert_nothing_lost(text: str, result: PageParse) -> None:
    lines = text.split("\n")
    source = result.source
    assert source.rows_in == sum(1 for line in lines if line.strip())
    assert source.rows_in == source.rows_curated + source.rows_quarantined
    assert result.fragments.unplaced() == []
    assert result.fragments.joins_back()
    assert not any(note.startswith(INTERNAL_ERROR) for note in result.report.notes), result.report.notes
    for row in (r for r in result.records if isinstance(r, QuarantineRow)):
        assert row.reason != INTERNAL_ERROR
        assert row.line is not None and row.raw in lines[row.line - 1]
    keys: Counter[tuple[Any, ...]] = Counter(
        (r.TABLE, *(getattr(r, k) for k in r.KEY)) for r in result.records if r.KEY
    )
    assert [k for k, n in keys.items() if n > 1] == []


@FUZZ
@given(mutated_page())
def test_mutated_seeds_never_crash_nor_lose_text(text: str) -> None:
    assert_nothing_lost(text, parse_page_text(text, source_id="page_export:fuzz.txt"))


@settings(max_examples=40, deadline=None)
@given(truncated_page())
def test_truncated_seeds_never_crash_nor_lose_text(text: str) -> None:
    assert_nothing_lost(text, parse_page_text(text, source_id="page_export:fuzz.txt"))


#: Byte runs no UTF-8 text can hold wherever they are inserted (a stray continuation byte,
#: bytes never used, an overlong `/`, an encoded surrogate).
NOT_UTF8 = st.sampled_from([b"\x80", b"\xff", b"\xfe", b"\xc0\xaf", b"\xed\xa0\x80"])


@st.composite
def page_with_bad_bytes(draw: st.DrawFn) -> tuple[bytes, set[int]]:
    """A mutated seed with bytes that are not UTF-8 put into some of its non-empty lines
    (possibly inside a character); returns the bytes and the 1-based numbers of those lines."""
    lines = [line.encode("utf-8") for line in draw(mutated_page()).split("\n")]
    filled = [i for i, line in enumerate(lines) if line.strip()]
    damaged: set[int] = set()
    for _ in range(draw(st.integers(1, 4)) if filled else 0):
        i = draw(st.sampled_from(filled))
        at = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:at] + draw(NOT_UTF8) + lines[i][at:]
        damaged.add(i + 1)
    return b"\n".join(lines), damaged


@FUZZ
@given(page_with_bad_bytes())
def test_bytes_that_are_not_utf8_quarantine_their_line_only(page: tuple[bytes, set[int]]) -> None:
    data, damaged = page
    result = parse_page_bytes(data, source_id="page_export:fuzz.txt")
    assert_nothing_lost(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "backslashreplace"), result)
    rows = [r for r in result.records if isinstance(r, QuarantineRow) and r.reason == INVALID_UTF8]
    assert {r.line for r in rows} == damaged
    lines = data.split(b"\n")
    for row in rows:
        assert row.raw == lines[(row.line or 0) - 1].decode("utf-8", "backslashreplace").strip()
    placed = {getattr(r, "line", None) for r in result.records if not isinstance(r, QuarantineRow)}
    assert not placed & damaged
