"""Match keys: how names and factions are compared across sources.

Sources spell the same thing differently: typographic vs ASCII apostrophes
(`T’au` / `T'au`), a dropped opening quote (`Iron Hand’ Straken`), case
(`Tx42` / `TX42`), accents (`Kâhl`), hyphens (`long-las` / `long las`), BSData's
`[Legends]` tags and catalogue names (`Xenos - Orks`). A key folds all of that
away so that equal keys mean "same name"; display names are never changed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from pipeline import config
from pipeline.normalise.text import collapse_ws, fold_dashes, fold_quotes

_TAG = re.compile(r"\s*\[([^\]]*)\]\s*$")
_QUOTE_CHARS = re.compile(r"[\"'`]")
_NOT_WORD = re.compile(r"[^0-9a-z+ ]+")
#: Catalogue name parts that say nothing about the faction (`Imperium - Astra Militarum - Library`).
GENERIC_PARTS = frozenset({"chaos", "imperium", "xenos", "library", "aeldari"})
#: Name tags (BSData) and publication words (Wahapedia) that mark a datasheet as not current.
LEGEND_TAGS = {"legends": "Legends", "crucible": "Crucible"}
_LEGENDS_WORD = re.compile(r"\blegends\b")


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Quotes, dashes, accents, case and spacing folded; punctuation to spaces."""
    text = unicodedata.normalize("NFKD", fold_dashes(fold_quotes(text)))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = _QUOTE_CHARS.sub("", text)
    return collapse_ws(_NOT_WORD.sub(" ", text))


def name_key(name: str) -> str:
    """Key of a unit, model or weapon name: `Hell's Last [Legends]` -> `hells last`."""
    while _TAG.search(name):
        name = _TAG.sub("", name)
    return fold(name)


def display_name(name: str) -> str:
    """The published name: trailing tags (`[Legends]`) dropped, then `display_text`."""
    while _TAG.search(name):
        name = _TAG.sub("", name)
    return display_text(name)


@lru_cache(maxsize=65536)
def display_text(text: str) -> str:
    """One spelling for display: ASCII quotes and hyphens, single spaces, and a name written all in
    capitals (`CULT DEMAGOGUE`) in capitalised words (`Cult Demagogue`)."""
    text = collapse_ws(fold_dashes(fold_quotes(unicodedata.normalize("NFC", text))))
    if any(c.isalpha() for c in text) and text == text.upper():
        text = " ".join(w[:1] + w[1:].lower() for w in text.split(" "))
    return text


def legend_tag(name: str, source_book: str | None = None) -> str | None:
    """`Legends` / `Crucible` when a datasheet is not a current one: a BSData name tag
    (`Malcador [Legends]`), or a publication named Legends (Wahapedia `Legends: Astra Militarum`,
    `Horus Heresy Legends: ...`); None for a current datasheet."""
    while match := _TAG.search(name):
        tag = LEGEND_TAGS.get(fold(match.group(1)))
        if tag:
            return tag
        name = name[: match.start()]
    if source_book and _LEGENDS_WORD.search(fold(source_book)):
        return LEGEND_TAGS["legends"]
    return None


def singular_key(key: str) -> str:
    """Plural-insensitive key (`piranhas` ~ `piranha`, `khorne berzerkers` ~ `khorne berzerker`)."""
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in key.split())


def faction_aliases() -> dict[str, str]:
    """config.FACTION_ALIASES with both sides folded like faction keys."""
    return {fold(k): fold(v) for k, v in config.FACTION_ALIASES.items()}


def faction_key(faction: str, aliases: dict[str, str] | None = None) -> str:
    """Key of a faction name; catalogue names (`Chaos - World Eaters`) reduced to the faction."""
    parts = [fold(p) for p in re.split(r"\s+-\s+", fold_dashes(faction)) if p.strip()]
    specific = [p for p in parts if p not in GENERIC_PARTS] or parts or [""]
    key = re.sub(r"\s+library$", "", specific[-1]).strip()
    table = faction_aliases() if aliases is None else aliases
    return table.get(key, key)


def catalogue_faction(source_id: str) -> str | None:
    """The faction a BSData catalogue file is named after (`bsdata:Chaos - World Eaters.cat`).

    A catalogue is one army list: every entry in it belongs to that faction, even
    allies whose own `Faction:` keyword differs (Blood Legion daemons in World Eaters).
    """
    fmt, _, file_name = source_id.partition(":")
    if fmt != "bsdata" or not file_name.lower().endswith(".cat"):
        return None
    return file_name[: -len(".cat")]


@lru_cache(maxsize=65536)
def weapon_words(name: str) -> tuple[str, ...]:
    """Words of a weapon name, without a `(melee)` / `(ranged)` note the kind already says."""
    key = name_key(re.sub(r"\((?:melee|ranged|shooting)\)", " ", name, flags=re.IGNORECASE))
    return tuple(key.split())
