"""Entity resolution: which datasheets of different sources describe the same unit.

Datasheets are grouped by (faction key, name key). Groups that still hold a
single source format are then offered, in this order, to one other group that
lacks their format:

1. by the catalogue's faction (a BSData entry's `Faction:` keyword may name a sub-faction
   such as Blood Legions while its catalogue is World Eaters);
2. by name alone, when neither group's faction is known to the other's source (a naming
   difference the alias table misses) and each is the other's only candidate; the
   unit keeps the key of the group holding the freshest datasheet;
3. by singular, space-free name within the faction (`Piranha` / `Piranhas`, `Hellblade` /
   `Hell Blade`), when exactly one qualifies.

Only groups of disjoint formats merge, so two datasheets of one source are never
merged by a fallback (a source's own copies — e.g. an Index and a Legends Karanak —
still share a unit when their faction and name keys are equal).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pipeline.ids import slug
from pipeline.reconcile.keys import singular_key
from pipeline.reconcile.members import Member

GroupKey = tuple[str, str]

MATCH_PASSES = ("faction and name", "catalogue faction", "name only", "singular or spacing")


class Grouping:
    """Groups of members keyed by (faction key, name key), merged pass by pass."""

    def __init__(self, members: Iterable[Member]) -> None:
        self.groups: dict[GroupKey, list[Member]] = defaultdict(list)
        for member in members:
            self.groups[(member.faction_keys[0], member.name_key)].append(member)
        self.how: dict[GroupKey, str] = {key: MATCH_PASSES[0] for key in self.groups}

    def formats(self, key: GroupKey) -> set[str]:
        return {m.fmt for m in self.groups[key]}

    def single_format_keys(self) -> list[GroupKey]:
        return sorted(k for k in self.groups if len(self.formats(k)) == 1)

    def can_join(self, key: GroupKey, target: GroupKey) -> bool:
        return target != key and target in self.groups and not self.formats(key) & self.formats(target)

    def merge(self, key: GroupKey, target: GroupKey, how: str) -> None:
        self.groups[target].extend(self.groups.pop(key))
        self.how[target] = how
        self.how.pop(key, None)

    def merge_into_freshest(self, one: GroupKey, other: GroupKey, how: str) -> None:
        """Merge two groups under the key of the one holding the freshest datasheet."""

        def freshest(key: GroupKey) -> tuple[int, str, str]:
            return min(m.precedence() for m in self.groups[key])

        keep, drop = sorted((one, other), key=lambda k: (freshest(k), k))
        self.merge(drop, keep, how)


def _join_by_catalogue(grouping: Grouping) -> None:
    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        alternatives = sorted({f for m in grouping.groups[key] for f in m.faction_keys[1:]})
        targets = [(f, key[1]) for f in alternatives if grouping.can_join(key, (f, key[1]))]
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


def _join_by_name_only(grouping: Grouping) -> None:
    """Both groups' factions unknown to the other's source, and each the other's only candidate."""
    known = _factions_by_format(grouping)
    by_name: dict[str, list[GroupKey]] = defaultdict(list)
    for key in grouping.groups:
        by_name[key[1]].append(key)

    def candidates(key: GroupKey) -> list[GroupKey]:
        if not _exclusive(grouping, key, known):
            return []
        return [t for t in by_name[key[1]] if grouping.can_join(key, t) and _exclusive(grouping, t, known)]

    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        found = candidates(key)
        if len(found) == 1 and candidates(found[0]) == [key]:
            grouping.merge_into_freshest(key, found[0], MATCH_PASSES[2])


def _join_by_singular(grouping: Grouping, singular: Callable[[str], str]) -> None:
    by_singular: dict[GroupKey, list[GroupKey]] = defaultdict(list)
    for key in grouping.groups:
        by_singular[(key[0], singular(key[1]))].append(key)
    for key in grouping.single_format_keys():
        if key not in grouping.groups:
            continue
        targets = [t for t in by_singular[(key[0], singular(key[1]))] if grouping.can_join(key, t)]
        if len(targets) == 1:
            grouping.merge(key, targets[0], MATCH_PASSES[3])


def unit_id_for(key: GroupKey) -> str:
    """Stable id of a unit from its group key: `unit:world-eaters:lord-invocatus`."""
    return f"unit:{slug(key[0])}:{slug(key[1])}"


@dataclass(frozen=True)
class ResolvedUnit:
    """One unit: its id, the keys it was grouped under, its datasheets freshest first."""

    unit_id: str
    faction_key: str
    name_key: str
    members: list[Member]
    matched_by: str

    @property
    def formats(self) -> set[str]:
        return {m.fmt for m in self.members}


def resolve_units(members: Iterable[Member]) -> list[ResolvedUnit]:
    """Group datasheets into units; sorted by unit_id."""
    grouping = Grouping(members)
    _join_by_catalogue(grouping)
    _join_by_name_only(grouping)
    _join_by_singular(grouping, lambda key: singular_key(key).replace(" ", ""))
    units: dict[str, ResolvedUnit] = {}
    for key, group in grouping.groups.items():
        unit_id = unit_id_for(key)
        while unit_id in units:  # two keys with one slug: keep both units apart
            unit_id += "-x"
        ordered = sorted(group, key=Member.precedence)
        how = grouping.how[key] if len({m.fmt for m in group}) > 1 else "single source"
        units[unit_id] = ResolvedUnit(unit_id, key[0], key[1], ordered, how)
    return [units[k] for k in sorted(units)]
