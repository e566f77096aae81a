"""What the lines of a page export look like: markers, titles, labels, furniture, glue.

Kept apart from the parsers so every rule about the format is in one readable place
(the three seed files in `raw/pages/` are the specification)."""

from __future__ import annotations

import re

#: `Orks – Wazdakka Gutsmek` (en dash; a spaced hyphen or em dash is accepted too).
HEADER_RE = re.compile(r"^(?P<faction>[^|:]+?)\s+[–—-]\s+(?P<name>[^|]+)$")
CP_RE = re.compile(r"^(?P<cp>\d+)\s*CP$", re.IGNORECASE)
#: `Core – Battle Tactic` in the list, `Core – Battle Tactic Stratagem` in the glossary.
STRAT_TYPE_RE = re.compile(r"^(?P<detachment>.+?)\s+[–—]\s+(?P<type>.+?)(?P<suffix>\s+Stratagem)?$")
SOURCE_TAG_RE = re.compile(r"^[A-Z]{1,4}$")
DETACHMENT_LINE_RE = re.compile(r"^(?P<detachment>.+?)\s+Detachment$")
LABEL_RE = re.compile(r"^(?P<label>WHEN|TARGET|EFFECT|RESTRICTIONS):\s*(?P<value>.*)$")
NOTE_RE = re.compile(r"^Designer['’]s Note:\s*(?P<value>.*)$")
EXAMPLE_RE = re.compile(r"^Example:\s*(?P<value>.*)$")
BULLET_RE = re.compile(r"^-\s+(?P<value>.*)$")
POINTS_RE = re.compile(r"^\|\s*(?P<models>\d+)\s+models?\s*\|\s*(?P<cost>\d+)\s*\|?\s*$", re.IGNORECASE)
FURNITURE_KEYWORD_RE = re.compile(r"^The\b.*\bkeywords? (?:is|are) used in the following\b.*\bdatasheets:$")
EMPTY_TABLE_RE = re.compile(r"^[|\s]+$")

#: Army-list category words printed after a "The X keyword is used in ..." line.
CATEGORY_WORDS = frozenset(
    {
        "Epic Heroes",
        "Characters",
        "Battleline",
        "Infantry",
        "Mounted",
        "Beasts",
        "Monsters",
        "Vehicles",
        "Dedicated Transports",
        "Fortifications",
        "Allied Units",
        "Other",
        "and others...",
    }
)
#: Page navigation text, never a rule (`and others...` only ever ends a category list).
NAVIGATION_WORDS = frozenset({"Army List", "Datasheets collated", "and others..."})

#: Section markers of the datasheet part (exact line, or line prefix for the starred ones).
MARKERS = {
    "WARGEAR OPTIONS": "wargear",
    "ABILITIES": "abilities",
    "UNIT COMPOSITION": "composition",
    "LEADER": "leader",
    "FACTION KEYWORDS:": "faction_keywords",
    "STRATAGEMS": "stratagems",
    "DETACHMENT ABILITY": "detachment_ability",
}
PREFIX_MARKERS = {
    "RANGED WEAPONS": "ranged",
    "MELEE WEAPONS": "melee",
    "KEYWORDS:": "keywords",
    "DAMAGED:": "damaged",
}

_GLUE_END = '[.!?)\\]"”]'
_BULLET_GLUE = re.compile(r"(?<=[.!?:)\]\"”])(?=- \S)")
_EXAMPLE_GLUE = re.compile(rf"(?<={_GLUE_END})(?=Example: )")
_NOTE_GLUE = re.compile(rf"(?<={_GLUE_END})(?=Designer['’]s Note: )")
_TAIL_GLUE = re.compile(rf"(?<={_GLUE_END})(?=[A-Z])")
_NAMED_GLUE = re.compile(rf"(?<={_GLUE_END})(?=[A-Z][\w’'!,\- ]{{0,50}}?: )")
_COLLATED = re.compile(r"^Datasheets collated(?=\S)")


def section_marker(text: str) -> str | None:
    """The datasheet section a marker line opens, or None."""
    if text in MARKERS:
        return MARKERS[text]
    for prefix, section in PREFIX_MARKERS.items():
        if text.startswith(prefix) and (section not in {"ranged", "melee"} or "|" in text):
            return section
    return None


def is_special_heading(text: str) -> bool:
    """An all-caps line of the datasheet part naming a unit-specific section
    (`THROTTLEROKKIT SHOKKA ENGINE`, `WAAAGH! WAZDAKKA`)."""
    letters = [c for c in text if c.isalpha()]
    return (
        len(letters) >= 3
        and not any(c.islower() for c in letters)
        and not re.search(r"[|:]|\d", text)
        and len(text) <= 60
    )


def is_title_like(text: str, *, max_words: int = 8, max_len: int = 60) -> bool:
    """A heading: short, capitalised, no sentence end, no label, no table cell."""
    t = text.strip()
    if not t or len(t) > max_len or t.startswith("-") or "|" in t or ": " in t or t.endswith(":"):
        return False
    if t[-1] in ".,;" and not t.endswith("..."):
        return False
    if len(t.split()) > max_words or not any(c.isalpha() for c in t):
        return False
    head = re.sub(r"^\d+\.\s+", "", t)
    return bool(head) and head[0].isupper() and "." not in head.rstrip(".")


def is_furniture(text: str) -> bool:
    """Page furniture in any context: keyword-usage lines, navigation, empty table remnants."""
    return bool(FURNITURE_KEYWORD_RE.match(text) or text in NAVIGATION_WORDS or EMPTY_TABLE_RE.match(text))


def _tail_cut(text: str) -> int | None:
    """Where a heading or furniture text glued to the end of a sentence starts."""
    for match in _TAIL_GLUE.finditer(text):
        tail = text[match.start() :]
        if FURNITURE_KEYWORD_RE.match(tail) or tail in NAVIGATION_WORDS:
            return match.start()
        if is_title_like(tail, max_words=6, max_len=40):
            return match.start()
    return None


def glossary_cuts(text: str) -> list[int]:
    """Cut points of a glossary line: glued bullets, examples, notes, a glued trailing heading."""
    cuts = [m.start() for m in _BULLET_GLUE.finditer(text)]
    cuts += [m.start() for m in _EXAMPLE_GLUE.finditer(text)]
    cuts += [m.start() for m in _NOTE_GLUE.finditer(text)]
    collated = _COLLATED.match(text)
    if collated:
        cuts.append(collated.end())
    last = max(cuts, default=0)
    tail = _tail_cut(text[last:])
    if tail is not None:
        cuts.append(last + tail)
    return sorted(set(cuts))


def named_ability_cuts(text: str) -> list[int]:
    """Cut points before `Name:` abilities glued to the previous sentence, and glued bullets."""
    cuts = [m.start() for m in _NAMED_GLUE.finditer(text)]
    cuts += [m.start() for m in _BULLET_GLUE.finditer(text)]
    return sorted(set(cuts))
