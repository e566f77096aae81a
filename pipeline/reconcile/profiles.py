"""Model profiles of one unit across sources, matched profile by profile, and each stat's chosen value.

Sources split a unit's models differently (`OTHER MODELS` for three named BSData models;
one Wahapedia `Terminator Assault Squad` profile for BSData's storm-shield, lightning-claw
and sergeant profiles), so a profile joins the profile(s) of a fresher source with the same
name (or a name spelled alike; all of them when the fresher source repeats the name), else
those with the same per-model values, else, for a one-model datasheet, the only model left.
Rules: docs/reconcile.md#golden-records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from typing import Any

from pipeline.reconcile.keys import name_key, singular_key
from pipeline.reconcile.members import Member
from pipeline.reconcile.names import SPELLING_RATIO, Cluster, Item
from pipeline.reconcile.precedence import Choice, Offer, choose, choose_paired
from schemas.records import ModelProfile

STAT_FIELDS = ("movement", "toughness", "save", "invuln", "wounds", "leadership", "oc")
#: Stats chosen with the statline (not compared to match profiles, not filled into page profiles).
EXTRA_FIELDS = ("fnp", "damage_reduction", "unit_size")
#: Fields written as a roll target (`3+`) when shown in a conflict.
ROLL_FIELDS = frozenset({"save", "invuln", "leadership", "skill", "fnp", "invuln_melee"})

ProfileCluster = Cluster[ModelProfile]


def render(field: str, value: Any) -> str | None:
    """A value as shown in `source_conflicts` (`3+` for roll targets, lists joined)."""
    if value is None:
        return None
    if isinstance(value, list):
        return ", ".join(sorted(str(v) for v in value)) or "none"
    return f"{value}+" if field in ROLL_FIELDS else str(value)


def _words(profile: ModelProfile) -> tuple[str, ...]:
    return tuple(singular_key(name_key(profile.name)).split())


def main_first(member: Member) -> list[ModelProfile]:
    """The member's profiles, the one named like the unit first."""
    wanted = singular_key(member.name_key)
    named = [p for p in member.profiles if singular_key(name_key(p.name)) == wanted]
    return [*named[:1], *(p for p in member.profiles if p is not (named[0] if named else None))]


def same_values(one: ModelProfile, other: ModelProfile) -> bool:
    """Both have a statline and every stat both give is equal (a missing one is no opinion)."""
    if not (one.has_statline and other.has_statline):
        return False
    return all(a is None or b is None or a == b for a, b in ((getattr(one, f), getattr(other, f)) for f in STAT_FIELDS))


NameTest = Callable[[tuple[str, ...], tuple[str, ...]], bool]


def _affix(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """One name is the other's first or last words (`Combat Servitor` / `Combat Servitors and Gun Servitors`)."""
    short, long = sorted((one, other), key=len)
    return bool(short) and len(short) < len(long) and (long[: len(short)] == short or long[-len(short) :] == short)


NAME_TESTS: tuple[NameTest, ...] = (lambda a, b: a == b, _affix)


def _unique_name_pairs(items: list[ModelProfile], clusters: list[ProfileCluster], test: NameTest) -> dict[int, int]:
    """item -> cluster where the name test holds for exactly that pair, both ways."""
    found = {i: [c for c, cl in enumerate(clusters) if any(test(_words(p), _words(q)) for q in cl.records)]
             for i, p in enumerate(items)}  # fmt: skip
    takers: dict[int, int] = {}
    for hits in found.values():
        for c in hits:
            takers[c] = takers.get(c, 0) + 1
    return {i: hits[0] for i, hits in found.items() if len(hits) == 1 and takers[hits[0]] == 1}


def _spelling_pairs(items: list[ModelProfile], clusters: list[ProfileCluster]) -> dict[int, int]:
    """item -> cluster whose names are spelled alike (`Ironkin` / `Ironkyn`), each the other's one best."""

    def score(p: ModelProfile, cluster: ProfileCluster) -> float:
        return max(SequenceMatcher(None, " ".join(_words(p)), " ".join(_words(q))).ratio() for q in cluster.records)

    scores = {(i, c): score(p, cl) for i, p in enumerate(items) for c, cl in enumerate(clusters)}

    def best(options: dict[int, float]) -> int | None:
        ranked = sorted(options.items(), key=lambda kv: -kv[1])
        if not ranked or ranked[0][1] < SPELLING_RATIO or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
            return None
        return ranked[0][0]

    pairs = {}
    for i in range(len(items)):
        c = best({c: scores[i, c] for c in range(len(clusters))})
        if c is not None and best({j: scores[j, c] for j in range(len(items))}) == i:
            pairs[i] = c
    return pairs


def _same_name_repeats(
    items: list[ModelProfile], clusters: list[ProfileCluster], placed: dict[int, list[int]]
) -> dict[int, list[int]]:
    """A profile named like several profiles of a fresher source that repeats one name (BSData's two
    `Einhyr Hearthguard` profiles): it joins all of them, when it is the only profile that could."""
    taken = {c for cs in placed.values() for c in cs}
    named = {
        i: [c for c, cl in enumerate(clusters) if c not in taken and any(_words(p) == _words(q) for q in cl.records)]
        for i, p in enumerate(items)
        if i not in placed
    }
    takers: dict[int, int] = {}
    for hits in named.values():
        for c in hits:
            takers[c] = takers.get(c, 0) + 1
    return {i: hits for i, hits in named.items() if len(hits) > 1 and all(takers[c] == 1 for c in hits)}


def _by_name(items: list[ModelProfile], clusters: list[ProfileCluster]) -> dict[int, list[int]]:
    """Profiles placed by name, stricter tests first: exact (singular) words, the same name repeated by
    the fresher source, one name the other's first or last words, names spelled alike."""
    placed: dict[int, list[int]] = {}
    for test in (NAME_TESTS[0], "repeats", *NAME_TESTS[1:], "spelling"):
        if test == "repeats":
            placed.update(_same_name_repeats(items, clusters, placed))
            continue
        free_items = [i for i in range(len(items)) if i not in placed]
        taken = {c for cs in placed.values() for c in cs}
        free = [c for c in range(len(clusters)) if c not in taken]
        sub_items, sub_clusters = [items[i] for i in free_items], [clusters[c] for c in free]
        pairs = (
            _spelling_pairs(sub_items, sub_clusters)
            if test == "spelling"
            else _unique_name_pairs(sub_items, sub_clusters, test)  # type: ignore[arg-type]
        )
        placed.update({free_items[i]: [free[c]] for i, c in pairs.items()})
    return placed


def _place(member: Member, clusters: list[ProfileCluster]) -> dict[int, list[int]]:
    """Which clusters each of the member's profiles joins (by name, by values, or as the one model)."""
    items = main_first(member)
    placed = _by_name(items, clusters)
    taken = {c for cs in placed.values() for c in cs}
    for i, item in enumerate(items):
        if i in placed:
            continue
        alike = [c for c in range(len(clusters)) if c not in taken and same_values(item, clusters[c].records[0])]
        if alike:
            placed[i] = alike
    taken = {c for cs in placed.values() for c in cs}
    if len(items) == 1 and 0 not in placed and len(clusters) - len(taken) == 1:
        placed[0] = [c for c in range(len(clusters)) if c not in taken]
    return {i: placed.get(i, []) for i in range(len(items))}


def profile_clusters(members: Sequence[Member]) -> list[ProfileCluster]:
    """The same model across the unit's datasheets (members freshest first); the main one first.

    The main cluster is the one named like the unit, else the one most datasheets share,
    else the first model of the freshest source.
    """
    clusters: list[ProfileCluster] = []
    for member in members:
        items = main_first(member)
        for i, targets in _place(member, clusters).items():
            if not targets:
                clusters.append(Cluster(kind="model", name=items[i].name))
                targets = [len(clusters) - 1]
            for c in targets:
                clusters[c].add(member, Item("model", items[i].name, _words(items[i]), items[i]))
    return sorted(clusters, key=lambda c: _main_rank(c, members, clusters))


def _main_rank(
    cluster: ProfileCluster, members: Sequence[Member], clusters: list[ProfileCluster]
) -> tuple[int, int, int]:
    unit_words = tuple(singular_key(members[0].name_key).split()) if members else ()
    named = any(item.words == unit_words for item in cluster.items)
    sheets = len({m.datasheet_id for m, _ in cluster.entries})
    return (0 if named else 1, -sheets, clusters.index(cluster))


def _offers(cluster: ProfileCluster, field: str) -> list[Offer]:
    return [
        Offer(p.source_id or m.sheet.source_id, m.dating, render(field, getattr(p, field, None)), m.datasheet_id,
              getattr(p, field, None))
        for m, item in cluster.entries
        for p in [item.record]
    ]  # fmt: skip


def stat_choices(cluster: ProfileCluster) -> dict[str, Choice]:
    """The chosen value of every stat of one model; conditions and sources go with their stat."""
    choices = {field: choose(_offers(cluster, field)) for field in (*STAT_FIELDS, *EXTRA_FIELDS)}
    with_invuln = [(m, item.record) for m, item in cluster.entries if item.record.invuln is not None]
    conditions = [
        Offer(p.source_id or m.sheet.source_id, m.dating, p.invuln_condition or "any", m.datasheet_id,
              p.invuln_condition)
        for m, p in with_invuln
    ]  # fmt: skip
    choices["invuln_condition"] = choose_paired(choices["invuln"], "invuln", conditions)
    choices["invuln_melee"] = choose_paired(choices["invuln"], "invuln", _offers(cluster, "invuln_melee"))
    for stat, source in (("fnp", "fnp_source"), ("damage_reduction", "damage_reduction_source")):
        choices[source] = choose_paired(choices[stat], stat, _offers(cluster, source))
    return choices


#: Choices compared for conflicts (the others follow one of these).
CONFLICT_FIELDS = (*STAT_FIELDS, "invuln_condition")
