"""`compact_json` writes what `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` wrote."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.publish.compact_json import compact_json


def _stdlib(value: Any, sort_keys: bool) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20
)


#: The same, without the numbers below 1e-4 whose exponent form may differ: the text itself is the same.
_SAME_TEXT = st.recursive(
    _SCALARS.filter(lambda v: not isinstance(v, float) or v == 0 or abs(v) >= 1e-4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_VALUES, st.booleans())
def test_same_values_as_the_standard_library(value: Any, sort_keys: bool) -> None:
    assert json.loads(compact_json(value, sort_keys=sort_keys)) == json.loads(_stdlib(value, sort_keys))


@given(_SAME_TEXT, st.booleans())
def test_same_text_as_the_standard_library_above_1e_4(value: Any, sort_keys: bool) -> None:
    assert compact_json(value, sort_keys=sort_keys) == _stdlib(value, sort_keys)


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [True, None, 2.5, -0.0, 1e16, 1.5e300, 5e-324, 1 / 3, 0.0001]},
        {"name": "Ork Boyz ‘Ere We Go’ — Waaagh!", "text": 'tab\there\nnew \x00\x1f \u2028 \x7f "q" \\'},
        {"ключ": "значение", "emoji": "🛡️", "nested": {"z": {"y": [1, [2, [3]]]}}},
        [],
        {},
        2**64 - 1,
    ],
)
@pytest.mark.parametrize("sort_keys", [True, False])
def test_same_text_as_the_standard_library(value: Any, sort_keys: bool) -> None:
    assert compact_json(value, sort_keys=sort_keys) == _stdlib(value, sort_keys)


@pytest.mark.parametrize(
    "value",
    [{1: "int key"}, {"big": 2**70}, {"lone": "\ud800"}],
    ids=["int-key", "beyond-64-bits", "lone-surrogate"],
)
def test_what_orjson_refuses_is_written_by_the_standard_library(value: Any) -> None:
    assert compact_json(value, sort_keys=True) == _stdlib(value, True)


def test_small_numbers_may_differ_in_exponent_form_only() -> None:
    text = compact_json([1e-05, 1e-07], sort_keys=False)
    assert json.loads(text) == [1e-05, 1e-07] and text != _stdlib([1e-05, 1e-07], False)


def test_nan_and_infinities_are_null() -> None:
    assert compact_json([math.nan, math.inf, -math.inf], sort_keys=False) == "[null,null,null]"
