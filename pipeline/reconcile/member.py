"""One datasheet as reconciliation sees it: the unit every matching rule reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.reconcile.keys import singular_key
from pipeline.reconcile.precedence import Dating, precedence_key, source_format
from schemas.records import Datasheet, ModelProfile, Points, Weapon


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
