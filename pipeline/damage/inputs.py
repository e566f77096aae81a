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


def per_model_cost(points: pl.DataFrame) -> pl.DataFrame:
    """datasheet_id -> points per model, from the datasheet's cheapest option.

    Rule: take the option with the lowest unit cost (ties: the one with more
    models), and divide its cost by its models. A weapon is carried by one model,
    so `damage_per_100_points` compares it with what one such model costs.
    """
    return (
        points.filter(pl.col("cost") > 0, pl.col("models") > 0)
        .sort(["datasheet_id", "cost", "models"], descending=[False, False, True])
        .group_by("datasheet_id", maintain_order=True)
        .first()
        .select("datasheet_id", (pl.col("cost") / pl.col("models")).alias("cost_per_model"))
    )
