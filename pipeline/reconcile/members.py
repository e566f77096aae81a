"""Each datasheet with its profiles, weapons, points, date and match keys, gathered once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from pipeline.dataset import Dataset
from pipeline.reconcile.copies import find_copies
from pipeline.reconcile.factions import Filed, own_keys, parent_factions
from pipeline.reconcile.keys import faction_key, fold, legend_tag, name_key, singular_key
from pipeline.reconcile.precedence import Dating, date_of, precedence_key, source_format
from schemas.records import Datasheet, Keyword, ModelProfile, Points, Record, Source, Weapon

R = TypeVar("R", bound=Record)


@dataclass
class Member:
    """One datasheet as reconciliation sees it."""

    sheet: Datasheet
    dating: Dating
    name_key: str
    faction_keys: tuple[str, ...]
    profiles: list[ModelProfile] = field(default_factory=list)
    weapons: list[Weapon] = field(default_factory=list)
    points: list[Points] = field(default_factory=list)
    #: `Legends` / `Crucible` for a datasheet that is not current (keys.legend_tag), else None.
    legend: str | None = None
    #: Faction keys of the datasheet's faction keywords (folded, aliased).
    keyword_keys: frozenset[str] = frozenset()
    #: The faction keywords themselves, folded but not aliased (`blood angels`, `adeptus astartes`).
    faction_keywords: frozenset[str] = frozenset()
    #: Every keyword of the datasheet, upper case.
    keywords: frozenset[str] = frozenset()
    #: datasheet_id of the home datasheet this one is a copy of (its weapons are the home's).
    copy_of: str | None = None

    @property
    def datasheet_id(self) -> str:
        return self.sheet.datasheet_id

    @property
    def fmt(self) -> str:
        return source_format(self.sheet.source_id)

    @property
    def singular(self) -> str:
        return singular_key(self.name_key)

    def precedence(self) -> tuple[int, str, str]:
        return precedence_key(self.dating, self.datasheet_id)

    def cheapest(self) -> Points | None:
        """The cheapest points option (fewest models on a tie)."""
        return min(self.points, key=lambda p: (p.cost, p.models), default=None)


def _by_datasheet(records: Iterable[R]) -> dict[str, list[R]]:
    grouped: dict[str, list[R]] = defaultdict(list)
    for record in records:
        grouped[str(getattr(record, "datasheet_id", ""))].append(record)
    return grouped


def _keywords(dataset: Dataset) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """datasheet_id -> its keywords; and -> its faction keywords, folded."""
    every: dict[str, set[str]] = defaultdict(set)
    faction: dict[str, set[str]] = defaultdict(set)
    for keyword in dataset.records(Keyword):
        every[keyword.datasheet_id].add(keyword.keyword)
        if keyword.is_faction:
            faction[keyword.datasheet_id].add(fold(keyword.keyword))
    return {k: frozenset(v) for k, v in every.items()}, {k: frozenset(v) for k, v in faction.items()}


def _filed_under_parents(members: list[Member]) -> list[Member]:
    """The sub-faction rule (factions.parent_factions) applied to each member's first key."""
    parents = parent_factions(Filed(m.fmt, m.faction_keys[0], m.keyword_keys) for m in members)
    moved = []
    for member in members:
        parent = parents.get((member.fmt, member.faction_keys[0]))
        keys = member.faction_keys if parent is None else tuple(dict.fromkeys((parent, *member.faction_keys)))
        moved.append(member if parent is None else replace(member, faction_keys=keys))
    return moved


def gather_members(dataset: Dataset, aliases: dict[str, str]) -> list[Member]:
    """Every datasheet of the dataset as a Member, in input order; copies carry their home's weapons."""
    source_dates = {s.source_id: s.source_date for s in dataset.records(Source) if s.source_date}
    profiles = _by_datasheet(dataset.records(ModelProfile))
    weapons = _by_datasheet(dataset.records(Weapon))
    points = _by_datasheet(dataset.records(Points))
    keywords, faction_keywords = _keywords(dataset)
    members = [
        Member(
            sheet=sheet,
            dating=date_of(sheet, source_dates),
            name_key=name_key(sheet.name),
            faction_keys=own_keys(sheet, aliases),
            profiles=list(profiles.get(sheet.datasheet_id, [])),
            weapons=list(weapons.get(sheet.datasheet_id, [])),
            points=list(points.get(sheet.datasheet_id, [])),
            legend=legend_tag(sheet.name, sheet.source_book),
            keyword_keys=frozenset(faction_key(k, aliases) for k in faction_keywords.get(sheet.datasheet_id, ())),
            faction_keywords=faction_keywords.get(sheet.datasheet_id, frozenset()),
            keywords=keywords.get(sheet.datasheet_id, frozenset()),
        )
        for sheet in dataset.records(Datasheet)
    ]
    members = _filed_under_parents(members)
    homes = find_copies(members)
    return [
        m if m.datasheet_id not in homes else replace(m, copy_of=homes[m.datasheet_id].datasheet_id,
                                                      weapons=list(homes[m.datasheet_id].weapons))
        for m in members
    ]  # fmt: skip
