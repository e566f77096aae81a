"""Entity resolution: which datasheets of different sources describe the same unit.

Datasheets are grouped by (faction key, name key, Legends status); groups that still
hold a single source format are then offered, pass by pass, to one other group of the
same Legends status that lacks their format (catalogue faction, name only, singular or
spacing, close spelling). Only groups of disjoint formats merge, and the merged unit's key is chosen by
a fixed order that does not depend on which sources are present. Rules:
docs/reconcile.md#unit-matching; ids: docs/ids.md#unit-ids.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from pipeline.ids import slug
from pipeline.reconcile.keys import singular_key
from pipeline.reconcile.member import Member

#: (faction key, name key, legend tag or "")
GroupKey = tuple[str, str, str]

MATCH_PASSES = ("faction and name", "catalogue faction", "name only", "singular or spacing", "close spelling")
#: Minimum similarity (difflib ratio) of two unit names spelled differently (`Armour` / `Armor`).
UNIT_SPELLING_RATIO = 0.9


def group_key(member: Member) -> GroupKey:
    return (member.faction_keys[0], member.name_key, member.legend or "")


def preferred_key(keys: Iterable[GroupKey]) -> GroupKey:
    """The key a merged unit keeps, whatever the sources: the name with the most words, then the
    longest (`hell blade` over `hellblade`, `piranhas` over `piranha`), then alphabetical order."""
    return min(keys, key=lambda k: (-len(k[1].split()), -len(k[1]), k[1], k[0]))


class Grouping:
    """Groups of members keyed by (faction key, name key, legend), merged pass by pass."""

    def __init__(self, members: Iterable[Member]) -> None:
        self.groups: dict[GroupKey, list[Member]] = defaultdict(list)
        for member in members:
            self.groups[group_key(member)].append(member)
        self.how: dict[GroupKey, str] = {key: MATCH_PASSES[0] for key in self.groups}

    def formats(self, key: GroupKey) -> set[str]:
        return {m.fmt for m in self.groups[key]}

    def single_format_keys(self) -> list[GroupKey]:
        return sorted(k for k in self.groups if len(self.formats(k)) == 1)

    def can_join(self, key: GroupKey, target: GroupKey) -> bool:
        return (
            target != key
            and target in self.groups
            and target[2] == key[2]
            and not self.formats(key) & self.formats(target)
        )

    def merge(self, key: GroupKey, target: GroupKey, how: str, keep: GroupKey | None = None) -> None:
        """Merge `key` into `target`, under `keep` (default: the target's key)."""
        members = self.groups.pop(key) + self.groups.pop(target)
        self.how.pop(key, None)
        self.how.pop(target, None)
        final = keep or target
        self.groups[final] = members
        self.how[final] = how


def _join_by_catalogue(grouping: Grouping) -> None:
    """A datasheet's other faction keys (its own `Faction:` in an allied catalogue, or the
    catalogue of a library entry): the group moves under the other group's faction."""
    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        alternatives = sorted({f for m in grouping.groups[key] for f in m.faction_keys[1:]})
        targets = [(f, key[1], key[2]) for f in alternatives if grouping.can_join(key, (f, key[1], key[2]))]
        if len(targets) == 1:
            grouping.merge(key, targets[0], MATCH_PASSES[1])


def _factions_by_format(grouping: Grouping) -> dict[str, set[str]]:
    known: dict[str, set[str]] = defaultdict(set)
    for members in grouping.groups.values():
        for member in members:
            for faction in member.faction_keys:
                known[faction].add(member.fmt)
    return known


def _exclusive(grouping: Grouping, key: GroupKey, known: dict[str, set[str]]) -> bool:
    """No other format knows any faction of this group (a naming difference, or a faction
    only this source covers)."""
    formats = grouping.formats(key)
    return all(known[f] <= formats for m in grouping.groups[key] for f in m.faction_keys)


def _keywords(grouping: Grouping, key: GroupKey) -> frozenset[str]:
    return frozenset(k for m in grouping.groups[key] for k in m.keyword_keys)


def _same_army(grouping: Grouping, key: GroupKey, target: GroupKey) -> bool:
    """Faction keywords do not say the two are different armies (both known and disjoint:
    ADEPTUS TITANICUS and TITANICUS TRAITORIS Warlord Titans are two units)."""
    mine, theirs = _keywords(grouping, key), _keywords(grouping, target)
    return not (mine and theirs) or bool(mine & theirs)


def _join_by_name_only(grouping: Grouping) -> None:
    """Both groups' factions unknown to the other's source, their faction keywords not disjoint,
    and each the other's only candidate."""
    known = _factions_by_format(grouping)
    by_name: dict[tuple[str, str], list[GroupKey]] = defaultdict(list)
    for key in grouping.groups:
        by_name[(key[1], key[2])].append(key)

    def candidates(key: GroupKey) -> list[GroupKey]:
        if not _exclusive(grouping, key, known):
            return []
        return [
            t
            for t in by_name[(key[1], key[2])]
            if grouping.can_join(key, t) and _exclusive(grouping, t, known) and _same_army(grouping, key, t)
        ]

    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        found = candidates(key)
        if len(found) == 1 and candidates(found[0]) == [key]:
            grouping.merge(key, found[0], MATCH_PASSES[2], keep=min(key, found[0]))


def _join_by_singular(grouping: Grouping, singular: Callable[[str], str]) -> None:
    by_singular: dict[tuple[str, str, str], list[GroupKey]] = defaultdict(list)
    for key in grouping.groups:
        by_singular[(key[0], singular(key[1]), key[2])].append(key)
    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        targets = [t for t in by_singular[(key[0], singular(key[1]), key[2])] if grouping.can_join(key, t)]
        if len(targets) == 1:
            grouping.merge(key, targets[0], MATCH_PASSES[3], keep=preferred_key((key, targets[0])))


def _spelling(one: str, other: str) -> float | None:
    """The names' similarity ratio, or None when it cannot reach `UNIT_SPELLING_RATIO` (the matcher's cheap upper
    bounds say so first: such a name can be neither the best candidate nor tie with it)."""
    matcher = SequenceMatcher(None, one, other)
    if matcher.real_quick_ratio() < UNIT_SPELLING_RATIO or matcher.quick_ratio() < UNIT_SPELLING_RATIO:
        return None
    return matcher.ratio()


def _join_by_spelling(grouping: Grouping) -> None:
    """Same faction and Legends status, names spelled alike (ratio >= UNIT_SPELLING_RATIO), each
    the other's one best candidate (`Ancient in Terminator Armour` / `... Armor`)."""
    by_faction: dict[str, list[GroupKey]] = defaultdict(list)
    for key in grouping.groups:
        by_faction[key[0]].append(key)

    def best(key: GroupKey) -> GroupKey | None:
        joinable = (t for t in by_faction[key[0]] if grouping.can_join(key, t))
        scored = sorted(((ratio, t) for t in joinable if (ratio := _spelling(key[1], t[1])) is not None), reverse=True)
        if not scored or scored[0][0] < UNIT_SPELLING_RATIO or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return None
        return scored[0][1]

    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        target = best(key)
        if target is not None and best(target) == key:
            kept = preferred_key((key, target))
            grouping.merge(key, target, MATCH_PASSES[4], keep=kept)
            by_faction[key[0]] = [k for k in by_faction[key[0]] if k not in (key, target)] + [kept]


def unit_id_for(key: GroupKey) -> str:
    """Id of a unit from its group key: `unit:world-eaters:lord-invocatus`, `unit:astra-militarum:malcador-legends`."""
    suffix = f"-{slug(key[2])}" if key[2] else ""
    return f"unit:{slug(key[0])}:{slug(key[1])}{suffix}"


@dataclass(frozen=True)
class ResolvedUnit:
    """One unit: its id, the keys it was grouped under, its datasheets freshest first."""

    unit_id: str
    faction_key: str
    name_key: str
    members: list[Member]
    matched_by: str
    legend: str | None = None

    @property
    def formats(self) -> set[str]:
        return {m.fmt for m in self.members}


def resolve_units(members: Iterable[Member]) -> list[ResolvedUnit]:
    """Group datasheets into units; sorted by unit_id."""
    grouping = Grouping(members)
    _join_by_catalogue(grouping)
    _join_by_name_only(grouping)
    _join_by_singular(grouping, lambda key: singular_key(key).replace(" ", ""))
    _join_by_spelling(grouping)
    units: dict[str, ResolvedUnit] = {}
    for key in sorted(grouping.groups):
        group = grouping.groups[key]
        unit_id = unit_id_for(key)
        while unit_id in units:  # two keys with one slug: keep both units apart
            unit_id += "-x"
        ordered = sorted(group, key=Member.precedence)
        how = grouping.how[key] if len({m.fmt for m in group}) > 1 else "single source"
        units[unit_id] = ResolvedUnit(unit_id, key[0], key[1], ordered, how, key[2] or None)
    return [units[k] for k in sorted(units)]
