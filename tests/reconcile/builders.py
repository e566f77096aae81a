"""Small hand-made records for reconcile tests (the real corpora are tested in test_real_sources.py)."""

from __future__ import annotations

from typing import Any

from pipeline.dataset import Dataset
from pipeline.ids import slug
from pipeline.reconcile.golden import UnitContext, UnitOutcome, reconcile_unit
from pipeline.reconcile.keys import faction_aliases
from pipeline.reconcile.matching import resolve_units
from pipeline.reconcile.members import Member, gather_members
from schemas.records import Datasheet, Keyword, ModelProfile, Points, Record, Weapon

DEFAULT_SOURCE = {
    "page_export": "page_export:p.txt",
    "wahapedia_csv": "wahapedia_csv:Datasheets.csv",
    "bsdata": "bsdata:Chaos - World Eaters.cat",
}


def sheet(
    fmt: str,
    faction: str,
    name: str,
    *,
    source_id: str | None = None,
    date: str | None = None,
    book: str | None = None,
    role: str | None = None,
) -> Datasheet:
    source = source_id or DEFAULT_SOURCE[fmt]
    prefix = {"page_export": "page", "wahapedia_csv": "wh", "bsdata": "bs"}[fmt]
    datasheet_id = f"{prefix}:{slug(source)}:{slug(faction)}:{slug(name)}"
    return Datasheet(datasheet_id=datasheet_id, source_id=source, faction=faction, name=name, source_date=date,
                     source_book=book, role=role)  # fmt: skip


def keywords(of: Datasheet, *names: str, faction: bool = True) -> list[Keyword]:
    return [Keyword(datasheet_id=of.datasheet_id, source_id=of.source_id, keyword=n, is_faction=faction) for n in names]


def profile(of: Datasheet, name: str | None = None, **stats: Any) -> ModelProfile:
    name = name or of.name
    return ModelProfile(
        profile_id=f"{of.datasheet_id}:{slug(name)}", datasheet_id=of.datasheet_id, source_id=of.source_id,
        name=name, **stats,
    )  # fmt: skip


def statline(of: Datasheet, name: str | None = None, **changes: Any) -> ModelProfile:
    """A full statline (M6 T4 Sv3+ W2 Ld6+ OC1) with some stats changed."""
    stats: dict[str, Any] = dict(movement=6, toughness=4, save=3, wounds=2, leadership=6, oc=1)
    stats.update(changes)
    return profile(of, name, **stats)


def weapon(of: Datasheet, name: str, kind: str = "ranged", **changes: Any) -> Weapon:
    stats: dict[str, Any] = dict(range_inches=24 if kind == "ranged" else None, attacks="2", skill=3,
                                 strength=4, ap=0, damage="1")  # fmt: skip
    stats.update(changes)
    return Weapon(
        weapon_id=f"{of.datasheet_id}:{kind}:{slug(name)}", datasheet_id=of.datasheet_id,
        source_id=of.source_id, name=name, kind=kind, **stats,
    )  # fmt: skip


def points(of: Datasheet, models: int, cost: int) -> Points:
    return Points(datasheet_id=of.datasheet_id, source_id=of.source_id, models=models, cost=cost)


def members(*records: Record) -> list[Member]:
    """Members of a dataset of the records, freshest first."""
    found = gather_members(Dataset(records), faction_aliases())
    return sorted(found, key=Member.precedence)


def golden_of(found: list[Member]) -> UnitOutcome:
    """The golden outcome of members that form exactly one unit."""
    (unit,) = resolve_units(found)
    return reconcile_unit(unit, UnitContext(faction_names={}))
