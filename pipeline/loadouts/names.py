"""Matching the names a loadout uses (`The Sergeant`, `Every Grenadier model`, `2 rokkit pistols`) to
composition parts, model profiles and weapons, stricter rules first; a rule only answers when exactly one
candidate passes (docs/sources.md#default-loadouts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from pipeline.reconcile.keys import name_key

#: Words that carry no identity in a model or weapon name.
_FILLER = frozenset({"with", "the", "of", "and", "a", "an", "model", "models", "w"})
#: Words that make another weapon when added (`twin lascannon` is not `lascannon`).
PROFILE_CHANGING = frozenset({"twin", "heavy", "light", "combi", "master", "crafted", "relic", "storm", "assault"})
#: Minimum similarity (difflib ratio) for two spellings of one name.
SPELLING_RATIO = 0.88


def stem(word: str) -> str:
    """A word without its plural ending, the same for both numbers: `voidsmen`/`voidsman`, `wolves`/`wolf`,
    `knives`/`knife`, `missionaries`/`missionary`, `heroes`/`hero`, `boyz`/`boy`, `bikers`/`biker`."""
    if len(word) <= 3:
        return word
    for plural, single in (("men", "man"), ("ies", "y"), ("lves", "lf"), ("nives", "nife"), ("oes", "o")):
        if word.endswith(plural):
            return word[: -len(plural)] + single
    if word.endswith(("s", "z")) and not word.endswith(("ss", "zz", "us")):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)  # the same few thousand names are matched against each other ≈ 73 k times a run
def key(name: str) -> str:
    """Case, quotes, dashes, accents, punctuation and plurals folded: `Intercessors` ~ `intercessor`."""
    return " ".join(stem(w) for w in name_key(name).split())


@lru_cache(maxsize=65536)
def words(name: str) -> frozenset[str]:
    return frozenset(key(name).split()) - _FILLER


def _contains(target: frozenset[str], guard: frozenset[str]) -> Callable[[str], bool]:
    """Words of one name inside the other's, none of the extra words in `guard`."""

    def rule(candidate: str) -> bool:
        other = words(candidate)
        if not target or not other or not (target <= other or other <= target):
            return False
        return not (target ^ other) & guard

    return rule


def best_match(
    name: str, candidates: Sequence[str], *, overlap: bool = True, spelling: bool = False,
    guard: frozenset[str] = frozenset(),
) -> int | None:  # fmt: skip
    """Index of the one candidate naming the same thing: equal keys; else the words of one inside the
    other's (extra words not in `guard`); else (`overlap`) the most words in common; else (`spelling`) a
    close spelling. None when no rule has exactly one answer."""
    target, target_words = key(name), words(name)
    for rule in (lambda c: key(c) == target, _contains(target_words, guard)):
        hits = [i for i, c in enumerate(candidates) if rule(c)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            return _narrowest(hits, candidates, target_words)
    if overlap:
        common = [len(target_words & words(c)) for c in candidates]
        top = max(common, default=0)
        if top and common.count(top) == 1:
            return common.index(top)
    if spelling:
        close = [i for i, c in enumerate(candidates) if SequenceMatcher(None, target, key(c)).ratio() >= SPELLING_RATIO]
        return close[0] if len(close) == 1 else None
    return None


def _narrowest(hits: list[int], candidates: Sequence[str], target: frozenset[str]) -> int | None:
    """Among several candidates, the one whose words differ least from the name's, if unique."""
    distance = [len(words(candidates[i]) ^ target) for i in hits]
    best = min(distance)
    return hits[distance.index(best)] if distance.count(best) == 1 else None
