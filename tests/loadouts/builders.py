"""Hand-made records for built loadout cases (phrasings the real data does not have)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.loadouts.text import SheetFacts
from schemas.records import Datasheet, ModelProfile, Points, Weapon

SHEET = "test:sheet"


def weapon(name: str, sheet: str = SHEET, kind: str = "ranged") -> Weapon:
    return Weapon(
        weapon_id=f"{sheet}:{kind}:{name}", datasheet_id=sheet, name=name, kind=kind,
        range_inches=None if kind == "melee" else 24, attacks="1", skill=3, strength="4", ap=0, damage="1",
    )  # fmt: skip


def profile(name: str, *keywords: str) -> ModelProfile:
    return ModelProfile(profile_id=f"{SHEET}:{name}", datasheet_id=SHEET, name=name, keywords=list(keywords))


def facts(
    loadout: str | None,
    composition: Sequence[str],
    options: Sequence[int],
    profiles: Sequence[ModelProfile],
    weapons: Sequence[str],
    *,
    wargear: Sequence[str] = (),
    has_options: bool = False,
    home_weapons: Sequence[Weapon] = (),
) -> SheetFacts:
    sheet = Datasheet(datasheet_id=SHEET, source_id="test", faction="Test", name="Test Squad", loadout=loadout)
    points = tuple(Points(datasheet_id=SHEET, models=n, cost=10 * n, description=f"{n} models") for n in options)
    return SheetFacts(
        datasheet=sheet, composition=tuple(composition), options=points, profiles=tuple(profiles),
        weapons=tuple(weapon(w) for w in weapons), home_weapons=tuple(home_weapons), wargear=tuple(wargear),
        has_options=has_options,
    )  # fmt: skip
