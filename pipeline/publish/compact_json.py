"""Compact JSON text for the feed's bulk writers (faction documents, rows with JSON columns), by orjson.

The text is what `json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=...)` wrote, at about a
sixth of its CPU (docs/releases.md#json-text): the same characters and escapes, the same values; numbers below
1e-4 in magnitude may be written in another exponent form (`1e-7` for `1e-07`), which parses to the same float.
NaN and infinities (which `json.dumps` wrote as `NaN`, not JSON) become `null`. Values orjson does not take (keys
that are not strings, integers beyond 64 bits, lone surrogates) are written by the standard library as before.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def compact_json(value: Any, *, sort_keys: bool) -> str:
    """`value` as compact JSON text, keys sorted or in their order."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
