"""Invulnerable saves as BSData writes them, read by meaning (any spelling reading like "invulnerable", a
bare `4+`, `of 5+`, attack types, conditional sentences) (docs/sources.md#invulnerable-saves)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.normalise.text import collapse_ws, fold_quotes
from schemas.records import InvulnCondition

#: A word that reads like "invulnerable" (misspellings included) or the short "invuln".
INV_WORD = r"\binv\w*?(?:ra?ble?|uln)\w*"
_INV_RE = re.compile(INV_WORD, re.IGNORECASE)
_BEFORE = re.compile(rf"([2-6])\s*\+\s*\*?\s*(?:{INV_WORD})", re.IGNORECASE)
_AFTER = re.compile(rf"(?:{INV_WORD})\s+sav\w*(?:\s+characteristic)?\s+of\s+([2-6])\s*\+", re.IGNORECASE)
_BARE = re.compile(r"^\W*([2-6])\s*\+\s*\*?\W*$")
_ATTACKS = re.compile(r"\bagainst\s+(ranged|melee|shooting|close combat|psychic)\b", re.IGNORECASE)
_CONDITIONAL = re.compile(
    r"\b(while|whilst|once per|until|if|when|within|each time|aura|leading|start of|end of|instead)\b",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=\.)\s+|\n+")
_BULLET = re.compile(r"^\s*[-•■–]\s*")
_GRANTS = re.compile(r"\b(?:has|have|gains?|gets?)\b", re.IGNORECASE)
_EXCLUDING = re.compile(r"\bexcluding (?:the |any |its )?([^),.;]+)", re.IGNORECASE)
_ATTACK_WORDS: dict[str, InvulnCondition | None] = {
    "ranged": "ranged",
    "shooting": "ranged",
    "melee": "melee",
    "close combat": "melee",
}


_CHARACTERISTIC = re.compile(INV_WORD + r"|^i(?:nv)?\.?\s*s(?:v|ave)\.?$", re.IGNORECASE)


def mentions_invuln(*texts: str | None) -> bool:
    return any(_INV_RE.search(t or "") for t in texts)


def is_invuln_characteristic(name: str) -> bool:
    """A statline characteristic holding the save (`Invulnerable Save`, `InvSv`, `Inv. Sv`, `ISv`)."""
    return bool(_CHARACTERISTIC.search(name.strip()))


@dataclass(frozen=True)
class InvulnReading:
    """What an ability says about an invulnerable save.

    `value` applies against `condition` attacks (None: all); `melee`, when set, is the save
    against melee attacks where it differs. `conditional` names why no value applies always.
    """

    value: int | None = None
    condition: InvulnCondition | None = None
    melee: int | None = None
    conditional: str | None = None
    sentence: str = ""
    excluding: tuple[str, ...] = ()

    @property
    def grants(self) -> bool:
        return self.value is not None


def _values(sentence: str) -> list[tuple[int, str | None]]:
    """(value, attack type named after it) for every value in a sentence."""
    found = []
    for match in [*_BEFORE.finditer(sentence), *_AFTER.finditer(sentence)]:
        attacks = _ATTACKS.search(sentence, match.end())
        clause_end = re.search(r"[,;]|\band\b", sentence[match.end() :])
        in_clause = attacks is not None and (clause_end is None or attacks.start() - match.end() <= clause_end.start())
        found.append((match.start(), int(match.group(1)), attacks.group(1).lower() if in_clause and attacks else None))
    return [(value, attacks) for _, value, attacks in sorted(found)]


def _combine(values: list[tuple[int, str | None]]) -> tuple[int, InvulnCondition | None, int | None] | str:
    """One save from the values of a text (or why there is none)."""
    usable = [(v, _ATTACK_WORDS.get(a or ""), a) for v, a in values if a != "psychic"]
    if not usable:
        return "psychic attacks only" if values else "no value"
    unconditioned = [v for v, cond, a in usable if a is None]
    ranged = [v for v, cond, _ in usable if cond == "ranged"]
    melee = [v for v, cond, _ in usable if cond == "melee"]
    if unconditioned:
        best = min(unconditioned)
        melee_value = min(melee) if melee and min(melee) < best else None
        return best, None, melee_value
    if ranged:
        return min(ranged), "ranged", (min(melee) if melee else None)
    return min(melee), "melee", None


@lru_cache(maxsize=8192)
def read_invuln(name: str, text: str) -> InvulnReading | None:
    """The save an ability (name, text) grants; None if it does not mention one."""
    name, text = collapse_ws(fold_quotes(name)), fold_quotes(text or "")
    if not mentions_invuln(name, text):
        return None
    named = bool(_INV_RE.search(name))
    values: list[tuple[int, str | None]] = []
    conditional: str | None = None
    excluding: list[str] = []
    grant_words = named
    lines = [collapse_ws(s) for s in _SENTENCES.split(text) if s.strip()]
    lead_in = ""
    for sentence in lines:
        bare = _BARE.match(sentence)
        if bare and named:
            values.append((int(bare.group(1)), None))
            continue
        lead_in = lead_in if _BULLET.match(sentence) else sentence
        if not _INV_RE.search(sentence):
            continue
        marker = _CONDITIONAL.search(sentence) or (_CONDITIONAL.search(lead_in) if _BULLET.match(sentence) else None)
        found = _values(sentence)
        grant_words = grant_words or bool(_GRANTS.search(sentence))
        if marker and found:
            conditional = conditional or f"conditional ({marker.group(1).lower()})"
            continue
        values.extend(found)
        excluding.extend(m.group(1).strip() for m in _EXCLUDING.finditer(sentence))
    if named and not values:
        in_name = re.search(r"([2-6])\s*\+", name)
        values.extend([(int(in_name.group(1)), None)] if in_name else [])
    if not values and not conditional and not grant_words:
        conditional = "mentions invulnerable saves, grants none"
    return _reading(values, conditional, lines, tuple(excluding))


def _reading(
    values: list[tuple[int, str | None]], conditional: str | None, lines: list[str], excluding: tuple[str, ...]
) -> InvulnReading:
    # A footnote that qualifies a bare value (`4+` then `* ... 4+ ... against melee attacks`) wins.
    qualified = {v for v, a in values if a is not None}
    values = [(v, a) for v, a in values if a is not None or v not in qualified]
    combined = _combine(values)
    sentence = next((s for s in lines if _INV_RE.search(s) or _BARE.match(s)), "")
    if isinstance(combined, str):
        reason = conditional or ("conditional (psychic attacks only)" if combined.startswith("psychic") else None)
        return InvulnReading(conditional=reason, sentence=sentence)
    value, condition, melee = combined
    return InvulnReading(value, condition, melee, None, sentence, excluding)
