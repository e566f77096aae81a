"""Text of BattleScribe profiles: characteristics, rule descriptions, statline values, read in one place so
every record builder is consistent."""

from __future__ import annotations

import re

from pipeline.normalise.text import collapse_ws, fold_quotes
from pipeline.sources.bsdata.index import Element, children

_MARKUP_RE = re.compile(r"\^\^|\*\*")
_NONE_VALUES = {"", "-", "–", "n/a", "none"}
_DAMAGED_RE = re.compile(r"^damaged\s*:?\s*(\d+\s*[-–]\s*\d+|\d+)\s*wounds?\b", re.IGNORECASE)
_LEADING_MARKS_RE = re.compile(r"^[\W_]+(?=\w)")


def clean_text(text: str | None) -> str:
    """Plain text: BattleScribe markup removed, spaces collapsed per line, blank lines dropped."""
    if not text:
        return ""
    lines = (collapse_ws(_MARKUP_RE.sub("", line)) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def node_text(element: Element | None) -> str:
    """An element's text with entity references kept as written (`&foo;`).

    The parser never resolves entities (`index._PARSER_OPTIONS`), so `&foo;` is a node
    and `.text` would stop before it; the text after it is that node's tail.
    """
    if element is None:
        return ""
    if len(element) == 0:
        return str(element.text or "")
    return "".join(element.itertext())


def clean_name(text: str | None) -> str:
    """An entry or profile name: `➤ Plasma gun - supercharge` -> `Plasma gun - supercharge`."""
    return _LEADING_MARKS_RE.sub("", collapse_ws(text or ""))


def characteristics(profile: Element) -> dict[str, str]:
    """Characteristic name (lower case) -> text, in document order."""
    values: dict[str, str] = {}
    for characteristic in children(profile, "characteristics", "characteristic"):
        name = (characteristic.get("name") or "").strip().casefold()
        if name and name not in values:
            values[name] = node_text(characteristic).strip()
    return values


def profile_text(profile: Element) -> str:
    """A profile as ability text: its only characteristic, or `Name: value` lines."""
    items = [
        (c.get("name") or "", clean_text(node_text(c))) for c in children(profile, "characteristics", "characteristic")
    ]
    items = [(name, text) for name, text in items if text]
    if len(items) == 1:
        return items[0][1]
    return "\n".join(f"{name}: {value}" for name, value in items)


def rule_text(rule: Element) -> str:
    return clean_text(node_text(rule.find("{*}description")))


def is_none_value(text: str | None) -> bool:
    return text is None or text.strip().casefold() in _NONE_VALUES


def stat_int(text: str | None) -> int | None:
    """`6` -> 6, `-` -> None; ValueError for anything else (`*`, `D6`)."""
    if is_none_value(text):
        return None
    cleaned = (text or "").strip()
    if not cleaned.isdigit():
        raise ValueError(f"not a whole number: {text!r}")
    return int(cleaned)


def stat_plus(text: str | None) -> int | None:
    """`3+` -> 3, `N/A` -> None; ValueError otherwise."""
    if is_none_value(text):
        return None
    match = re.fullmatch(r"(\d+)\s*\+?", (text or "").strip())
    if match is None:
        raise ValueError(f"not a roll target: {text!r}")
    return int(match.group(1))


def stat_inches(text: str | None) -> int | None:
    """`10"` -> 10, `20+"` / `20"+` (aircraft minimum move) -> 20, `-` / `Melee` -> None."""
    if text is None:
        return None
    cleaned = fold_quotes(text).replace('"', "").replace("+", "").strip()
    if cleaned.casefold() in _NONE_VALUES | {"melee"}:
        return None
    if not cleaned.isdigit():
        raise ValueError(f"not a distance: {text!r}")
    return int(cleaned)


_STRAY_PLUS = re.compile(r"^\s*(\d+)\s*\+\s*$")


def loose_dice(text: str | None) -> tuple[str, bool]:
    """A dice characteristic with a stray `+` (`8+`: a typo for 8) read as its number; True if so."""
    match = _STRAY_PLUS.match(text or "")
    return (match.group(1), True) if match else ((text or "").strip(), False)


def ap_value(text: str | None) -> str:
    """AP as written; `-` (no AP) means 0."""
    return "0" if is_none_value(text) else (text or "").strip()


def damaged_range(name: str) -> str | None:
    """`Damaged: 1-5 Wounds Remaining` -> `1-5`."""
    match = _DAMAGED_RE.match(name.strip())
    return re.sub(r"\s*[-–]\s*", "-", match.group(1)) if match else None
