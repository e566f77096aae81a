"""Plain-text columns never carry markup: tags are stripped, and what could still open one loses its `<`.

A published text column is plain text; only `*_html` columns hold (sanitised) HTML and
`quarantine.raw` holds the input as it was. Stripping, not escaping, so consumers get the words
without entities to decode; `<` stays where it cannot start a tag (`<5 models`). Why and where:
docs/dataset.md#plain-text-columns.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

#: A whole tag, comment, doctype or processing instruction: `<` then a letter, `/`, `!` or `?`.
TAG = r"<[A-Za-z/!?][^<>]*>"
#: What may open a tag once whole tags are gone (`<scr<b></b>ipt>`, an unclosed `<img src=x`): the
#: run of `<` before a letter, `/`, `!` or `?` is dropped, so no new opening can form.
TAG_OPENING = r"<+([A-Za-z/!?])"
_TAG = re.compile(TAG)
_TAG_OPENING = re.compile(TAG_OPENING)


def has_markup(text: str) -> bool:
    """True when `text` holds anything that could open a tag."""
    return _TAG_OPENING.search(text) is not None


def strip_markup(text: str) -> str:
    """`text` without tags; no `<` left before a letter, `/`, `!` or `?`."""
    if "<" not in text:
        return text
    return _TAG_OPENING.sub(r"\1", _TAG.sub("", text))


def strip_markup_deep(value: Any) -> Any:
    """`strip_markup` on every string of a JSON-like value (dict keys and values, lists)."""
    if isinstance(value, str):
        return strip_markup(value)
    if isinstance(value, dict):
        return {strip_markup_deep(k): strip_markup_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_markup_deep(v) for v in value]
    return value


def _stripped(expr: pl.Expr) -> pl.Expr:
    return expr.str.replace_all(TAG, "").str.replace_all(TAG_OPENING, "$1")


def strip_markup_columns(frame: pl.DataFrame, keep: set[str]) -> pl.DataFrame:
    """Every text and list-of-text column but those in `keep`, without markup (vectorised)."""
    exprs = []
    for name, dtype in frame.schema.items():
        if name in keep:
            continue
        if dtype == pl.String:
            exprs.append(_stripped(pl.col(name)))
        elif isinstance(dtype, pl.List) and dtype.inner == pl.String:
            exprs.append(pl.col(name).list.eval(_stripped(pl.element())))
    return frame.with_columns(exprs) if exprs and not frame.is_empty() else frame
