"""Matching weapons (and models) of one unit across its datasheets by name.

Sources name the same weapon differently: `Juggernaut’s bladed horn` / `Bladed horn`
(a possessive prefix), `Heavy plasma axe` / `Heavy plasma axe – sweep` (a mode
suffix), `Kroot rifle (melee)`, typos (`toxinjector` / `toxinjecter`) and plurals
(`spiked wheel` / `spiked wheels`). Items are matched in stages, stricter first:
exact key, singular key, affix (a whole-word prefix or suffix of the other name),
then close spelling. A stage only accepts pairs that are unique both ways, so an
ambiguous name (two modes against one shortened name) stays unmatched instead of
being matched to the wrong profile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Generic, TypeVar

from pipeline.reconcile.keys import name_key, singular_key
from pipeline.reconcile.members import Member

T = TypeVar("T")
Words = tuple[str, ...]

#: Words that make a different weapon when added in front (`twin lascannon` is not `lascannon`).
PROFILE_CHANGING_WORDS = frozenset({"twin", "heavy", "light", "combi", "master", "crafted", "relic", "storm"})
#: Minimum similarity (difflib ratio) for two spellings of one name.
SPELLING_RATIO = 0.88
_POSSESSIVE = re.compile(r"^(?:\S+\s+){0,2}?\S+['’]s?\s", re.UNICODE)


@dataclass(frozen=True)
class Item(Generic[T]):
    """A named thing of a datasheet: a weapon or a model profile."""

    kind: str
    name: str
    words: Words
    record: T


@dataclass
class Cluster(Generic[T]):
    """The same weapon (or model) across the datasheets of a unit, freshest first."""

    kind: str
    name: str
    entries: list[tuple[Member, Item[T]]] = field(default_factory=list)

    @property
    def items(self) -> list[Item[T]]:
        return [item for _, item in self.entries]

    @property
    def records(self) -> list[T]:
        return [item.record for _, item in self.entries]

    def add(self, member: Member, item: Item[T]) -> None:
        self.entries.append((member, item))


def _singular(words: Words) -> str:
    return singular_key(" ".join(words))


def _possessive_words(name: str) -> int:
    """How many key words precede and include a leading possessive (`Juggernaut’s bladed horn` -> 1)."""
    match = _POSSESSIVE.match(name)
    return len(name_key(match.group(0)).split()) if match else 0


def _is_affix(short: Words, long: Item[T], context: frozenset[str]) -> bool:
    """`short` is a whole-word prefix or suffix of `long`, and the extra words are harmless."""
    words = long.words
    if not short or len(short) >= len(words):
        return False
    if words[: len(short)] == short:
        return True  # a mode or note after the name
    if words[-len(short) :] != short:
        return False
    extra = words[: -len(short)]
    if PROFILE_CHANGING_WORDS & set(extra):
        return False
    named_after_model = {singular_key(w) for w in extra} <= context
    return named_after_model or _possessive_words(long.name) == len(extra)


Test = Callable[[Item[T], Cluster[T]], bool]


def _stages(context: frozenset[str], affixes: bool) -> list[Test[T]]:
    def exact(item: Item[T], cluster: Cluster[T]) -> bool:
        return any(item.words == other.words for other in cluster.items)

    def singular(item: Item[T], cluster: Cluster[T]) -> bool:
        return any(_singular(item.words) == _singular(other.words) for other in cluster.items)

    def affix(item: Item[T], cluster: Cluster[T]) -> bool:
        return any(
            _is_affix(item.words, other, context) or _is_affix(other.words, item, context) for other in cluster.items
        )

    return [exact, singular, affix] if affixes else [exact, singular]


def _unique_pairs(items: Sequence[Item[T]], clusters: Sequence[Cluster[T]], test: Test[T]) -> dict[int, int]:
    """item index -> cluster index, for pairs where each is the other's only candidate."""
    candidates = {
        i: [c for c, cl in enumerate(clusters) if cl.kind == it.kind and test(it, cl)] for i, it in enumerate(items)
    }
    takers: dict[int, list[int]] = {}
    for i, found in candidates.items():
        for c in found:
            takers.setdefault(c, []).append(i)
    return {i: found[0] for i, found in candidates.items() if len(found) == 1 and len(takers[found[0]]) == 1}


def _ratio(a: Words, b: Words) -> float:
    """Spelling similarity; 0 when one name adds a profile-changing word (`twin`)."""
    if PROFILE_CHANGING_WORDS & (set(a) ^ set(b)):
        return 0.0
    return SequenceMatcher(None, " ".join(a), " ".join(b)).ratio()


def _closeness(item: Item[T], cluster: Cluster[T]) -> float:
    return max(_ratio(item.words, o.words) for o in cluster.items) if item.kind == cluster.kind else 0.0


def _best(scores: dict[int, float]) -> int | None:
    """The one highest score at or above SPELLING_RATIO; None when below it or tied."""
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < SPELLING_RATIO or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]


def _spelling_pairs(items: Sequence[Item[T]], clusters: Sequence[Cluster[T]]) -> dict[int, int]:
    """Mutual best matches above SPELLING_RATIO (same kind)."""
    score = {(i, c): _closeness(item, cluster) for i, item in enumerate(items) for c, cluster in enumerate(clusters)}
    pairs = {}
    for i in range(len(items)):
        c = _best({c: score[i, c] for c in range(len(clusters))})
        if c is not None and _best({j: score[j, c] for j in range(len(items))}) == i:
            pairs[i] = c
    return pairs


def _assign(items: list[Item[T]], clusters: list[Cluster[T]], stages: list[Test[T]]) -> dict[int, int]:
    """Match one datasheet's items to the unit's clusters, stage by stage."""
    assigned: dict[int, int] = {}
    for test in [*stages, None]:
        free_items = [i for i in range(len(items)) if i not in assigned]
        free_clusters = [c for c in range(len(clusters)) if c not in assigned.values()]
        sub_items = [items[i] for i in free_items]
        sub_clusters = [clusters[c] for c in free_clusters]
        pairs = (
            _spelling_pairs(sub_items, sub_clusters) if test is None else _unique_pairs(sub_items, sub_clusters, test)
        )
        assigned.update({free_items[i]: free_clusters[c] for i, c in pairs.items()})
    return assigned


def cluster_items(
    members: Sequence[Member],
    items_of: Callable[[Member], list[Item[T]]],
    *,
    affixes: bool,
    seed: Callable[[Member, list[Item[T]], list[Cluster[T]]], dict[int, int]] | None = None,
) -> list[Cluster[T]]:
    """Group the items of a unit's datasheets (freshest first) into clusters of the same thing.

    Within one datasheet the first item of a name is used and repeats are ignored.
    `seed` may pre-assign items (e.g. each datasheet's main model profile).
    """
    context = frozenset(w for m in members for w in _context_words(m)) if affixes else frozenset()
    stages: list[Test[T]] = _stages(context, affixes)
    clusters: list[Cluster[T]] = []
    for member in members:
        items = _first_of_each_name(items_of(member))
        assigned = seed(member, items, clusters) if seed else {}
        rest = [i for i in range(len(items)) if i not in assigned]
        free = [c for c in range(len(clusters)) if c not in assigned.values()]
        matched = _assign([items[i] for i in rest], [clusters[c] for c in free], stages)
        assigned.update({rest[i]: free[c] for i, c in matched.items()})
        for i, item in enumerate(items):
            if i not in assigned:
                clusters.append(Cluster(kind=item.kind, name=item.name))
                assigned[i] = len(clusters) - 1
            clusters[assigned[i]].add(member, item)
    return clusters


def _context_words(member: Member) -> set[str]:
    """Words a weapon may be prefixed with: the unit's and its models' names (singular)."""
    names = [member.sheet.name, *(p.name for p in member.profiles)]
    return {singular_key(w) for n in names for w in name_key(n).split()}


def _first_of_each_name(items: list[Item[T]]) -> list[Item[T]]:
    seen: set[tuple[str, Words]] = set()
    kept = []
    for item in items:
        if (item.kind, item.words) not in seen:
            seen.add((item.kind, item.words))
            kept.append(item)
    return kept
