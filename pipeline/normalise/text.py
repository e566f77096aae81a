"""Plain-text normalisation shared by all sources."""

from __future__ import annotations

import re

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2032": "'",
        "\u2033": '"',
        "\u00a0": " ",
    }
)
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-"})


def collapse_ws(text: str) -> str:
    """Single spaces, no leading or trailing whitespace."""
    return " ".join(text.split())


def fold_quotes(text: str) -> str:
    """Typographic quotes and non-breaking spaces to ASCII (dashes untouched)."""
    return text.translate(_QUOTES)


def fold_dashes(text: str) -> str:
    return text.translate(_DASHES)


def match_key(text: str) -> str:
    """Key for comparing names across sources: quotes, dashes, case, spacing folded."""
    return collapse_ws(fold_dashes(fold_quotes(text))).casefold()


def parse_plus(text: str | None) -> int | None:
    """`3+` / `3` / ` 3+ ` -> 3; `-`, `N/A`, empty -> None; ValueError otherwise."""
    if text is None:
        return None
    cleaned = text.strip().rstrip("*").strip()
    if cleaned in {"", "-", "N/A", "n/a", "–"}:
        return None
    match = re.fullmatch(r"(\d+)\s*\+?", cleaned)
    if match is None:
        raise ValueError(f"not a roll target: {text!r}")
    return int(match.group(1))


def parse_inches(text: str | None) -> int | None:
    """`12"` / `12` / `Melee` -> 12 / 12 / None; ValueError otherwise."""
    if text is None:
        return None
    cleaned = fold_quotes(text).strip().rstrip('"').strip()
    if cleaned.casefold() in {"", "melee", "-", "n/a"}:
        return None
    if not cleaned.isdigit():
        raise ValueError(f"not a distance: {text!r}")
    return int(cleaned)


UTF8_BOM = b"\xef\xbb\xbf"


def decode_lines_strict(data: bytes) -> tuple[list[str], set[int]]:
    """A file's lines (BOM removed) and the 1-based numbers of those that are not UTF-8.

    Decoding is strict so a bad byte never becomes U+FFFD in a curated record: a clean
    file (the usual case) is decoded in one go; otherwise each line on its own, so a bad
    byte costs its own line only, which comes back with the bytes escaped (`\\xff`) for
    the quarantine.
    """
    data = data.removeprefix(UTF8_BOM)
    try:
        return data.decode("utf-8").split("\n"), set()
    except UnicodeDecodeError:
        pass
    texts: list[str] = []
    undecodable: set[int] = set()
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append(raw.decode("utf-8", "backslashreplace"))
            undecodable.add(number)
    return texts, undecodable
