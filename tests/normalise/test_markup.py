"""Plain text without markup: the Python and the vectorised (Polars) strip give the same text."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.normalise.markup import has_markup, strip_markup, strip_markup_columns, strip_markup_deep

CASES = [
    ("Lord Invocatus", "Lord Invocatus"),
    ("Wazdakka <b>Gutsmek</b>", "Wazdakka Gutsmek"),
    ("<img src=x onerror=alert(1)>", ""),
    ("a <script>alert(1)</script> b", "a alert(1) b"),
    ("<scr<i></i>ipt>alert(1)", "script>alert(1)"),
    ("<<img src=x", "img src=x"),
    ("unclosed <script", "unclosed script"),
    ("<!-- note --> after", " after"),
    ("a <!DOCTYPE html> b", "a  b"),
    ("if it has <5 models, or < 3 or a<->b", "if it has <5 models, or < 3 or a<->b"),
    ("&lt;script&gt; stays an entity", "&lt;script&gt; stays an entity"),
    ("3+ <- arrow", "3+ <- arrow"),
]


@pytest.mark.parametrize(("text", "plain"), CASES)
def test_strip_markup(text: str, plain: str) -> None:
    assert strip_markup(text) == plain
    assert not has_markup(strip_markup(text))


def test_polars_and_python_agree() -> None:
    frame = pl.DataFrame(
        {
            "name": [text for text, _ in CASES],
            "keywords": [[text, "PLAIN"] for text, _ in CASES],
            "raw": [text for text, _ in CASES],
            "cost": list(range(len(CASES))),
        }
    )
    stripped = strip_markup_columns(frame, keep={"raw"})
    assert stripped["name"].to_list() == [plain for _, plain in CASES]
    assert stripped["keywords"].to_list() == [[plain, "PLAIN"] for _, plain in CASES]
    assert stripped["raw"].to_list() == frame["raw"].to_list()
    assert stripped["cost"].to_list() == frame["cost"].to_list()


def test_json_values_are_stripped_key_and_value() -> None:
    value = {"<b>k</b>": ["<i>v</i>", 1, None], "n": {"x": "<img src=x>y"}}
    assert strip_markup_deep(value) == {"k": ["v", 1, None], "n": {"x": "y"}}
