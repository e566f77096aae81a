"""Small builders for damage tests: records -> engine frames -> one cell's outputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pipeline.damage import (
    compute_damage_matrix,
    points_frame,
    targets_frame,
    weapon_abilities_frame,
    weapons_frame,
)
from pipeline.damage.inputs import LOADOUT_SCHEMA
from pipeline.normalise.weapon_abilities import parse_weapon_ability
from schemas.records import ModelProfile, Points, Weapon


def weapon(weapon_id: str = "w", *, abilities: Sequence[str] = (), **stats: Any) -> Weapon:
    """A Weapon record; defaults: ranged 24", A10 BS3+ S4 AP0 D1 on datasheet `ds`."""
    base: dict[str, Any] = dict(datasheet_id="ds", name=weapon_id, kind="ranged", range_inches=24,
                                attacks="10", skill=3, strength=4, ap=0, damage="1")  # fmt: skip
    base.update(stats)
    if base["kind"] == "melee":
        base["range_inches"] = None
    typed = [parse_weapon_ability(a) for a in abilities]
    return Weapon(weapon_id=weapon_id, abilities=[a.normalised for a in typed], typed_abilities=typed, **base)


def typed_rows(w: Weapon) -> list[dict[str, Any]]:
    """The weapon's `weapon_abilities` rows as dicts (ability, value, keyword, raw)."""
    return [a.row() for a in w.typed_abilities]


def target(profile_id: str = "t", **stats: Any) -> ModelProfile:
    """A ModelProfile; defaults: T4 Sv3+ W2, INFANTRY, unit of 5 (a MEQ)."""
    base: dict[str, Any] = dict(datasheet_id="tds", name=profile_id, toughness=4, save=3, wounds=2,
                                keywords=["INFANTRY"], unit_size=5)  # fmt: skip
    base.update(stats)
    return ModelProfile(profile_id=profile_id, **base)


def run(weapons: Sequence[Weapon], targets: Sequence[ModelProfile], scenarios: Sequence[str] = ("default",),
        points: Sequence[Points] = (), stealth: Sequence[str] = (),
        loadouts: Sequence[dict[str, Any]] = ()) -> pl.DataFrame:  # fmt: skip
    """The engine's matrix; `stealth` lists profile_ids given the Stealth ability; `loadouts` are
    `datasheet_loadouts` rows (LOADOUT_SCHEMA columns)."""
    frame = targets_frame(targets).with_columns(pl.col("profile_id").is_in(list(stealth)).alias("stealth"))
    carried = pl.DataFrame(list(loadouts), schema=LOADOUT_SCHEMA)
    return compute_damage_matrix(
        weapons_frame(weapons), weapon_abilities_frame(weapons), frame, points_frame(points), scenarios, carried
    ).matrix


def cell(w: Weapon, t: ModelProfile | None = None, scenario: str = "default", **kwargs: Any) -> dict[str, Any]:
    """Outputs of one (weapon, target, scenario) cell as a dict."""
    matrix = run([w], [t or target()], [scenario], **kwargs)
    assert matrix.height == 1
    return matrix.row(0, named=True)
