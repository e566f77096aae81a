"""The engine's input frames, built from the published records.

The engine reads Polars frames with the published table columns (`weapons`,
`weapon_abilities`, `model_profiles` + `reference_profiles`, `points`) so the
pipeline can hand it the store's tables; these helpers build the same frames
from `schemas.records` objects for tests, benchmarks and seeds-only runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from pipeline.normalise.weapon_abilities import parse_weapon_ability
from schemas.records import DefensiveProfile, Points, Weapon
from schemas.weapon_abilities import WeaponAbility

WEAPON_SCHEMA: dict[str, Any] = {
    "weapon_id": pl.String,
    "datasheet_id": pl.String,
    "name": pl.String,
    "kind": pl.String,
    "range_inches": pl.Int64,
    "attacks": pl.String,
    "skill": pl.Int64,
    "strength": pl.String,
    "ap": pl.Int64,
    "damage": pl.String,
    "abilities": pl.List(pl.String),
    "attacks_mean": pl.Float64,
    "strength_mean": pl.Float64,
    "damage_mean": pl.Float64,
}

WEAPON_ABILITY_SCHEMA: dict[str, Any] = {
    "weapon_id": pl.String,
    "ability": pl.String,
    "value": pl.String,
    "keyword": pl.String,
    "raw": pl.String,
}

TARGET_SCHEMA: dict[str, Any] = {
    "profile_id": pl.String,
    "name": pl.String,
    "toughness": pl.Int64,
    "save": pl.Int64,
    "invuln": pl.Int64,
    "invuln_condition": pl.String,
    "invuln_melee": pl.Int64,
    "wounds": pl.Int64,
    "fnp": pl.Int64,
    "damage_reduction": pl.Int64,
    "keywords": pl.List(pl.String),
    "unit_size": pl.Int64,
    "halve_damage": pl.Boolean,
}

POINTS_SCHEMA: dict[str, Any] = {"datasheet_id": pl.String, "models": pl.Int64, "cost": pl.Int64}


def _frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    """Rows restricted to the schema's columns, typed by it (empty input -> empty typed frame)."""
    return pl.DataFrame([{k: row.get(k) for k in schema} for row in rows], schema=schema)


def weapons_frame(weapons: Iterable[Weapon]) -> pl.DataFrame:
    """`weapons` table rows (Weapon.row(): dice as text plus their means)."""
    return _frame([w.row() for w in weapons], WEAPON_SCHEMA)


def typed_abilities(weapon: Weapon) -> list[WeaponAbility]:
    """The weapon's typed abilities; re-parsed from its normalised strings when the record has none."""
    if weapon.typed_abilities:
        return list(weapon.typed_abilities)
    return [parse_weapon_ability(text) for text in weapon.abilities]


def weapon_abilities_frame(weapons: Iterable[Weapon]) -> pl.DataFrame:
    """`weapon_abilities` table rows (WeaponAbility.row() + weapon_id)."""
    rows = [
        {**ability.row(), "weapon_id": weapon.weapon_id} for weapon in weapons for ability in typed_abilities(weapon)
    ]
    return _frame(rows, WEAPON_ABILITY_SCHEMA)


def targets_frame(profiles: Iterable[DefensiveProfile]) -> pl.DataFrame:
    """Defensive columns of `model_profiles` / `reference_profiles` rows, one frame for both."""
    return _frame([p.row() for p in profiles], TARGET_SCHEMA)


def points_frame(points: Iterable[Points]) -> pl.DataFrame:
    """`points` table rows (datasheet_id, models, cost)."""
    return _frame([p.row() for p in points], POINTS_SCHEMA)


LOADOUT_SCHEMA: dict[str, Any] = {
    "datasheet_id": pl.String,
    "models": pl.Int64,
    "option": pl.String,
    "weapon_id": pl.String,
    "model_count": pl.Int64,
    "per_model": pl.Int64,
}


def cost_per_copy(weapon_ids: pl.DataFrame, points: pl.DataFrame, loadouts: pl.DataFrame | None) -> pl.DataFrame:
    """`weapon_ids` + `cost_per_copy`: the cost of the datasheet's cheapest option divided by the copies of the
    weapon its default loadout carries (1 when the loadout does not carry it: one model takes it).

    Cheapest: lowest cost, ties: more models. A lone special weapon in a squad is costed at the whole squad, a
    weapon every model carries at one model's share (docs/damage.md#the-sequence).
    """
    cheapest = (
        points.filter(pl.col("cost") > 0, pl.col("models") > 0)
        .sort(["datasheet_id", "cost", "models"], descending=[False, False, True])
        .group_by("datasheet_id", maintain_order=True)
        .first()
        .select("datasheet_id", "models", "cost")
    )
    frame = loadouts if loadouts is not None else pl.DataFrame(schema=LOADOUT_SCHEMA)
    copies = (
        frame.select(list(LOADOUT_SCHEMA))
        .join(cheapest.select("datasheet_id", "models"), on=["datasheet_id", "models"])
        .group_by("datasheet_id", "option", "weapon_id")
        .agg((pl.col("model_count") * pl.col("per_model")).sum().alias("copies"))
        .group_by("datasheet_id", "weapon_id")
        .agg(pl.col("copies").max())
    )
    return (
        weapon_ids.join(cheapest, on="datasheet_id", how="left")
        .join(copies, on=["datasheet_id", "weapon_id"], how="left")
        .with_columns((pl.col("cost") / pl.col("copies").fill_null(1)).alias("cost_per_copy"))
        .drop("models", "cost", "copies")
    )
