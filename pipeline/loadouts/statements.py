"""Loadout statements of a datasheet's text: `The Sergeant is equipped with: bolt pistol; chainsword.`
(docs/sources.md#default-loadouts)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.normalise.text import collapse_ws, fold_dashes, fold_quotes

_EQUIPPED = re.compile(
    r"\b(?:is|are)\s+(?:both\s+|each\s+|all\s+)?(?P<add>additionally\s+)?equipped\s+with\b\s*:?\s*",
    re.IGNORECASE,
)
#: End of the item list: a full stop before a new sentence, or the end of the line.
_ITEMS_END = re.compile(r"\.\s+(?=[A-Z*])|\.?\s*$")
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DETERMINERS = {"the", "every", "each", "all", "both", "this", "that", "its"}
_WHOLE_UNIT = {"model", "models", "unit", "squad"}
_NOTHING = {"nothing", "none", "no weapons", "-"}


@dataclass(frozen=True)
class Subject:
    """Who a statement is about: named models (none: the whole unit), how many of them, and whether it is
    `other` (the models no earlier statement took)."""

    names: tuple[str, ...]
    count: int | None = None
    other: bool = False

    @property
    def whole_unit(self) -> bool:
        return not self.names


@dataclass(frozen=True)
class Statement:
    subject_text: str
    subject: Subject
    items: tuple[str, ...]
    additional: bool


def statements(text: str | None) -> list[Statement]:
    """Every `... is equipped with: ...` statement of a loadout text, in order (`can be equipped` is an option)."""
    found: list[Statement] = []
    for line in fold_quotes(text or "").splitlines():
        found.extend(_line_statements(collapse_ws(line)))
    return found


def _line_statements(line: str) -> list[Statement]:
    found: list[Statement] = []
    start = 0
    while (match := _EQUIPPED.search(line, start)) is not None:
        subject_text = _last_sentence(line[start : match.start()])
        end = _ITEMS_END.search(line, match.end())
        stop, start = (end.start(), max(end.end(), match.end() + 1)) if end else (len(line), len(line))
        if subject_text and not subject_text.casefold().endswith(("can be", "may be")):
            items = _items(line[match.end() : stop])
            found.append(Statement(subject_text, parse_subject(subject_text), items, bool(match.group("add"))))
    return found


def _last_sentence(text: str) -> str:
    """What follows the last sentence end (`.`, `!`, `?`, `:` and a space) of a text."""
    cut = max(text.rfind(mark) for mark in (". ", "! ", "? ", ": "))
    return text[cut + 2 :].strip() if cut >= 0 else text.strip()


def _items(text: str) -> tuple[str, ...]:
    """Items of a list (`;`-separated; a lone item may use commas); `nothing` is no item."""
    parts = [p.strip(" .,") for p in text.split(";")]
    items = tuple(re.sub(r"^(?:and|plus)\s+", "", p, flags=re.IGNORECASE) for p in parts if p.strip(" .,"))
    return tuple(i for i in items if i.casefold() not in _NOTHING)


def parse_subject(text: str) -> Subject:
    """`Every other Nightmare Hulk` -> (Nightmare Hulk, other); `2 Havocs` -> (Havocs, 2); `This model` -> whole."""
    words = fold_dashes(text).split()
    count, other = None, False
    names: list[str] = []
    current: list[str] = []
    for word in words:
        low = word.casefold()
        if not current and low in _DETERMINERS:
            continue
        if not current and low == "other":
            other = True
            continue
        if not current and (low.isdigit() or low in _COUNT_WORDS) and count is None:
            count = int(low) if low.isdigit() else _COUNT_WORDS[low]
            continue
        if low in {"and", "&"} or word.endswith(","):
            if word.endswith(","):
                current.append(word[:-1])
            names.append(" ".join(current))
            current = []
            continue
        current.append(word)
    names.append(" ".join(current))
    kept = tuple(n for n in (_strip_model_word(n) for n in names) if n)
    if all(n.split()[0].casefold() in _WHOLE_UNIT for n in kept):
        kept = ()  # `model`, `models in this unit`, `unit`
    return Subject(kept, count, other)


def _strip_model_word(name: str) -> str:
    """`Grenadier model` -> `Grenadier` (a trailing `model(s)` only qualifies the name)."""
    words = name.split()
    if len(words) > 1 and words[-1].casefold() in {"model", "models"}:
        words = words[:-1]
    return " ".join(words)
