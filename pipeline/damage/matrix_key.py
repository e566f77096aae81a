"""What the matrix's files are computed from, as one digest: a run whose engine inputs are those of a cached
file places that file instead of writing it again (docs/damage.md#files).

The matrix is one file per scenario, rows sorted by statline across every source (that order is what makes
it compress); split by source it grew 1.35-2.4x and wrote 2-6x slower (docs/damage.md#files), so its unit of
reuse is the whole scenario.
"""

from __future__ import annotations

import polars as pl

from pipeline.cache.fingerprint import code_fingerprint, frame_digest, key_of
from pipeline.damage.inputs import TARGET_SCHEMA, WEAPON_ABILITY_SCHEMA, WEAPON_SCHEMA


def matrix_digest(
    weapons: pl.DataFrame,
    abilities: pl.DataFrame,
    weapon_ids: pl.DataFrame,
    targets: pl.DataFrame,
    target_ids: pl.DataFrame,
) -> str:
    """sha256 of every engine input in publication order: each weapon's `weapons` columns, `weapon_abilities`
    rows and cost per copy (`weapon_ids` order), each target's row as the engine reads it (`target_ids` order)."""
    return key_of(
        frame_digest(weapon_inputs(weapons, abilities, weapon_ids)), frame_digest(target_inputs(targets, target_ids))
    )


def scenario_key(digest: str, scenario: str) -> str:
    """The cache key of one scenario's file: the code, the scenario and the inputs' digest."""
    return key_of(code_fingerprint(), "damage_matrix", scenario, digest)


def weapon_inputs(weapons: pl.DataFrame, abilities: pl.DataFrame, ordered: pl.DataFrame) -> pl.DataFrame:
    """For each row of `ordered` (weapon_id, cost_per_copy): the weapon's engine columns and ability rows."""
    columns = [c for c in WEAPON_SCHEMA if c in weapons.columns and c != "weapon_id"]
    own = weapons.unique(subset="weapon_id", keep="first", maintain_order=True).select("weapon_id", *columns)
    listed = [c for c in WEAPON_ABILITY_SCHEMA if c in abilities.columns and c != "weapon_id"]
    rows = abilities.group_by("weapon_id", maintain_order=True).agg(pl.struct(listed).alias("ability_rows"))
    return (
        ordered.select("weapon_id", "cost_per_copy")
        .join(own, on="weapon_id", how="left", maintain_order="left")
        .join(rows, on="weapon_id", how="left", maintain_order="left")
    )


def target_inputs(targets: pl.DataFrame, ordered: pl.DataFrame) -> pl.DataFrame:
    """For each row of `ordered` (profile_id): the target's row as the engine read it."""
    columns = [c for c in (*TARGET_SCHEMA, "stealth") if c in targets.columns and c != "profile_id"]
    own = targets.unique(subset="profile_id", keep="first", maintain_order=True).select("profile_id", *columns)
    return ordered.select("profile_id").join(own, on="profile_id", how="left", maintain_order="left")
