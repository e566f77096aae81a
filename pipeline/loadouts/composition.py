"""Which models a points option holds: composition lines (`1 Intercessor Sergeant`, `4-9 Intercessors`,
`1 Runtherd and 10 Gretchin` OR ...) and option descriptions (`1 Sword Brother and 4 Initiates`), split
into named parts with counts (docs/sources.md#default-loadouts)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.normalise.text import collapse_ws, fold_dashes

_PART = re.compile(r"^(?P<low>\d+)(?:\s*-\s*(?P<high>\d+))?\s+(?P<name>\S.*)$")
#: Lines that separate alternative compositions.
_ALTERNATIVE = re.compile(r"^(?:or|one of the following)\s*:?$", re.IGNORECASE)
#: A trailing keyword tag (`1 Ghazghkull Thraka – EPIC HERO`) or footnote mark.
_TAG = re.compile(r"\s*-\s+[A-Z][A-Z ]+$|\s*\*+$")
#: `,` or `and` before a count: where one part of a line ends (a name may hold `and`).
_JOINS = re.compile(r",\s*(?:and\s+)?(?=\d)|\s+and\s+(?=\d)")
_MODELS_WORD = re.compile(r"^models?$", re.IGNORECASE)
#: A note in brackets: `1 Kill Team Terminator (Garran Branatar)`, `(4 large shield sections, ...)`.
_NOTE = re.compile(r"\s*\([^)]*\)")


@dataclass(frozen=True)
class Part:
    """Models of one kind in a composition: `4-9 Intercessors` -> (Intercessors, 4, 9)."""

    name: str
    low: int
    high: int


Alternative = tuple[Part, ...]


def clean_line(text: str) -> str:
    """First line, dashes folded (the non-breaking hyphen too), keyword tag and final stop dropped."""
    first = (text.strip().splitlines() or [""])[0]
    line = collapse_ws(fold_dashes(first).replace("\u2011", "-")).strip(" -:")
    return _TAG.sub("", line).strip().rstrip(".").strip()


def parse_parts(text: str) -> Alternative | None:
    """`1 Spanner and 4 Lootas` -> two parts; None if any piece has no count."""
    pieces = [p.strip() for p in _JOINS.split(_NOTE.sub("", clean_line(text))) if p.strip()]
    parts: list[Part] = []
    for piece in pieces:
        match = _PART.match(piece)
        if match is None or _MODELS_WORD.match(match.group("name").split()[0]):
            return None
        low = int(match.group("low"))
        high = int(match.group("high") or low)
        parts.append(Part(match.group("name").strip(), low, max(low, high)))
    return tuple(parts) or None


def alternatives(lines: Sequence[str]) -> list[Alternative]:
    """The unit's possible compositions: lines between `OR` separators form one; after `One of the
    following:` each line is one. Lines that are no parts (`This unit can contain a maximum of 10
    models.`) are left out."""
    blocks: list[list[Part]] = [[]]
    each_line = False
    for text in lines:
        line = clean_line(text)
        if _ALTERNATIVE.match(line):
            each_line = each_line or line.casefold().startswith("one")
            if blocks[-1]:
                blocks.append([])
            continue
        parts = parse_parts(line)
        if parts is None:
            continue
        if each_line and blocks[-1]:
            blocks.append([])
        blocks[-1].extend(parts)
    return [tuple(b) for b in blocks if b]


def named_option(description: str, models: int) -> Alternative | None:
    """An option that names its models (`1 Sword Brother, 5 Initiates and 4 Neophytes`), if they add up."""
    parts = parse_parts(description)
    if not parts:
        return None
    return parts if sum(p.low for p in parts) == models else None


def split(alternative: Alternative, models: int) -> list[tuple[str, int]] | None:
    """Counts per part for an option of `models`: each part at its minimum, the rest to the roomiest range
    (the rank and file), then the next roomiest; a unit of one kind of model has all of them. None if the
    option does not fit."""
    if len(alternative) == 1:
        return [(alternative[0].name, models)] if models >= alternative[0].low else None
    counts = [p.low for p in alternative]
    rest = models - sum(counts)
    if rest < 0:
        return None
    by_room = sorted(range(len(alternative)), key=lambda i: -(alternative[i].high - alternative[i].low))
    for index in by_room:
        extra = min(rest, alternative[index].high - alternative[index].low)
        counts[index] += extra
        rest -= extra
    if rest:
        return None
    return [(p.name, n) for p, n in zip(alternative, counts, strict=True)]


def option_parts(lines: Sequence[str], description: str, models: int) -> list[tuple[str, int]] | None:
    """The named parts of one points option: its own description if it names models, else the first
    composition that fits it."""
    named = named_option(description, models)
    if named is not None:
        return [(p.name, p.low) for p in named]
    for alternative in alternatives(lines):
        counts = split(alternative, models)
        if counts is not None:
            return counts
    return None
