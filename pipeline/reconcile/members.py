"""Each datasheet with its profiles, weapons, points, date and match keys, gathered once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from pipeline.dataset import Dataset
from pipeline.reconcile.keys import catalogue_faction, faction_key, name_key, singular_key
from pipeline.reconcile.precedence import Dating, date_of, precedence_key, source_format
from schemas.records import Datasheet, ModelProfile, Points, Record, Source, Weapon

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


def _faction_keys(sheet: Datasheet, aliases: dict[str, str]) -> tuple[str, ...]:
    """The sheet's own faction first, then the faction of the catalogue it sits in."""
    keys = [faction_key(sheet.faction, aliases)]
    catalogue = catalogue_faction(sheet.source_id)
    if catalogue is not None:
        keys.append(faction_key(catalogue, aliases))
    return tuple(dict.fromkeys(keys))


def _by_datasheet(records: Iterable[R]) -> dict[str, list[R]]:
    grouped: dict[str, list[R]] = defaultdict(list)
    for record in records:
        grouped[str(getattr(record, "datasheet_id", ""))].append(record)
    return grouped


def gather_members(dataset: Dataset, aliases: dict[str, str]) -> list[Member]:
    """Every datasheet of the dataset as a Member, in input order."""
    source_dates = {s.source_id: s.source_date for s in dataset.records(Source) if s.source_date}
    profiles = _by_datasheet(dataset.records(ModelProfile))
    weapons = _by_datasheet(dataset.records(Weapon))
    points = _by_datasheet(dataset.records(Points))
    return [
        Member(
            sheet=sheet,
            dating=date_of(sheet, source_dates),
            name_key=name_key(sheet.name),
            faction_keys=_faction_keys(sheet, aliases),
            profiles=list(profiles.get(sheet.datasheet_id, [])),
            weapons=list(weapons.get(sheet.datasheet_id, [])),
            points=list(points.get(sheet.datasheet_id, [])),
        )
        for sheet in dataset.records(Datasheet)
    ]
