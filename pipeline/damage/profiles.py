"""Distinct weapon and defensive profiles: what the engine actually computes on.

Thousands of weapons share a statline and ability set, and hundreds of models
share a defensive profile; the engine computes each distinct pair once and the
matrix maps every weapon_id / profile_id to its distinct key. A key holds every
column that can change a result and nothing else (e.g. the Blast bonus
floor(unit_size / 5) rather than unit_size, and only the target keywords that
some Anti ability names).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from pipeline.damage.abilities import AbilityColumns, complete_abilities, weapon_ability_columns
from schemas.dice import parse_dice

#: Weapon columns of a distinct weapon profile (plus one `anti_<KEYWORD>` per anti keyword).
WEAPON_KEY: tuple[str, ...] = (
    "ranged", "attacks_mean", "skill", "auto_hit", "str_n", "str_sides", "str_plus", "ap", "dmg_n", "dmg_sides",
    "dmg_plus",
    "blast", "rapid_fire", "sustained_hits", "lethal_hits", "twin_linked", "devastating_wounds", "heavy",
    "lance", "mel_n", "mel_sides", "mel_plus", "ignores_cover", "indirect_fire", "hazardous",
    "att_n", "att_sides", "att_plus", "sus_n", "sus_sides", "sus_plus", "rf_n", "rf_sides", "rf_plus",
)  # fmt: skip

#: Target columns every weapon needs (the key of a "base" defensive profile).
TARGET_BASE_KEY: tuple[str, ...] = (
    "toughness", "save", "inv_ranged", "inv_melee", "wounds", "fnp", "reduction", "halve", "stealth",
)  # fmt: skip

#: Plus the columns only Blast and Anti weapons read (and one `has_<KEYWORD>` per anti keyword).
TARGET_KEY: tuple[str, ...] = (*TARGET_BASE_KEY, "blast_bonus")

#: Plus the unit's size: what `models_slain` / `wounds_lost` read (`unit_keys.py` splits it further).
TARGET_UNIT_KEY: tuple[str, ...] = (*TARGET_KEY, "models")

NO_INVULN = 7  # a 7+ save never succeeds: "no invulnerable save"
NO_FNP = 7


@dataclass(frozen=True)
class WeaponProfiles:
    """weapon_id -> wkey (sorted by wkey, weapon_id) and one row per distinct profile (sorted by wkey)."""

    ids: pl.DataFrame
    profiles: pl.DataFrame
    abilities: AbilityColumns
    skill_null_as_torrent: int
    abilities_from_lists: int


@dataclass(frozen=True)
class TargetProfiles:
    """profile_id -> tkey and tkey_base (sorted by tkey, profile_id), and the distinct profiles.

    `profiles` (keyed by tkey) holds every column; `base` (keyed by tkey_base) only
    TARGET_BASE_KEY, enough for weapons without Blast or Anti: fewer pairs to compute;
    `units` (keyed by tkey_unit) adds the unit size for the unit-level outputs.
    """

    ids: pl.DataFrame
    profiles: pl.DataFrame
    base: pl.DataFrame
    units: pl.DataFrame
    skipped: list[str]
    duplicates: int


def _dice_columns(texts: pl.Series, prefix: str) -> pl.DataFrame:
    """Dice text -> `<prefix>_n`, `_sides`, `_plus` (parsed once per distinct text)."""
    parsed = {t: parse_dice(t) for t in texts.drop_nulls().unique().to_list()}
    return pl.DataFrame(
        {
            f"{prefix}_n": [parsed[t].n if t in parsed else 0 for t in texts],
            f"{prefix}_sides": [parsed[t].sides if t in parsed else 0 for t in texts],
            f"{prefix}_plus": [parsed[t].plus if t in parsed else 0 for t in texts],
        },
        schema={f"{prefix}_n": pl.Int64, f"{prefix}_sides": pl.Int64, f"{prefix}_plus": pl.Int64},
    )


def distinct_rows(frame: pl.DataFrame, columns: list[str]) -> tuple[pl.DataFrame, npt.NDArray[np.int64]]:
    """Distinct rows of `columns` (first-seen order) and each row's index among them."""
    distinct = frame.select(columns).unique(maintain_order=True).with_row_index("_key")
    index = frame.select(columns).join(distinct, on=columns, how="left", maintain_order="left", nulls_equal=True)
    return distinct.drop("_key"), index["_key"].cast(pl.Int64).to_numpy()


def _assign_keys(frame: pl.DataFrame, id_col: str, key: list[str], key_name: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Distinct key rows numbered in sorted order (deterministic) and the id -> key map."""
    distinct = frame.select(key).unique().sort(key).with_row_index(key_name)
    ids = frame.join(distinct, on=key, how="left").select(id_col, key_name).sort(key_name, id_col)
    return ids, distinct


def prepare_weapons(weapons: pl.DataFrame, weapon_abilities: pl.DataFrame) -> WeaponProfiles:
    """Weapons + their abilities -> distinct weapon profiles and the weapon_id -> wkey map."""
    weapons = weapons.unique(subset="weapon_id", keep="first", maintain_order=True)
    rows, from_lists = complete_abilities(weapons, weapon_abilities)
    abilities = weapon_ability_columns(rows)
    frame = weapons.join(abilities.frame, on="weapon_id", how="left").with_columns(abilities.fill_defaults())
    attacks = weapons["attacks_mean"] if "attacks_mean" in weapons.columns else None
    if attacks is None or attacks.null_count():
        attacks = pl.Series([parse_dice(t).mean for t in weapons["attacks"]], dtype=pl.Float64)
    skill_null = frame["skill"].is_null() & ~frame["torrent"]
    dice = [
        _dice_columns(frame["damage"], "dmg"),
        _dice_columns(frame["strength"].cast(pl.String), "str"),
        _dice_columns(frame["attacks"], "att"),
    ]
    frame = pl.concat([frame, *dice], how="horizontal").with_columns(
        attacks.alias("attacks_mean"),
        (pl.col("kind") == "ranged").alias("ranged"),
        (pl.col("torrent") | pl.col("skill").is_null()).alias("auto_hit"),
    )
    frame = frame.with_columns(
        pl.when(pl.col("auto_hit")).then(0).otherwise(pl.col("skill")).alias("skill"),
    )
    key = [*WEAPON_KEY, *abilities.anti_columns]
    ids, distinct = _assign_keys(frame, "weapon_id", key, "wkey")
    ids = ids.join(frame.select("weapon_id", "datasheet_id"), on="weapon_id", how="left")
    return WeaponProfiles(ids, distinct, abilities, int(skill_null.sum()), from_lists)


def _optional(frame: pl.DataFrame, column: str, dtype: type[pl.DataType]) -> pl.Expr:
    """A column some producers leave out (reference profiles have no `invuln_melee`): NULL when absent."""
    return pl.col(column) if column in frame.columns else pl.lit(None, dtype=dtype).alias(column)


def _target_columns(targets: pl.DataFrame, anti_keywords: list[str]) -> list[pl.Expr]:
    """Expressions that turn a target row into its defensive key columns."""
    keywords = pl.col("keywords").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    stealth = pl.col("stealth").fill_null(False) if "stealth" in targets.columns else pl.lit(False)
    condition, invuln = pl.col("invuln_condition"), pl.col("invuln").fill_null(NO_INVULN)
    melee = _optional(targets, "invuln_melee", pl.Int64)
    return [
        pl.when(condition.is_null() | (condition == "ranged")).then(invuln).otherwise(NO_INVULN).alias("inv_ranged"),
        pl.coalesce(melee, pl.when(condition.is_null() | (condition == "melee")).then(invuln).otherwise(NO_INVULN))
        .fill_null(NO_INVULN)
        .alias("inv_melee"),
        pl.col("fnp").fill_null(NO_FNP).alias("fnp"),
        pl.col("damage_reduction").fill_null(0).alias("reduction"),
        _optional(targets, "halve_damage", pl.Boolean).fill_null(False).alias("halve"),
        (pl.col("unit_size").fill_null(1) // 5).alias("blast_bonus"),
        pl.col("unit_size").fill_null(1).alias("models"),
        stealth.alias("stealth"),
        *[keywords.list.contains(k).alias(f"has_{k}") for k in anti_keywords],
    ]


def prepare_targets(targets: pl.DataFrame, anti_keywords: list[str]) -> TargetProfiles:
    """Targets -> distinct defensive profiles; rows without T, Sv or W are skipped and listed."""
    unique = targets.unique(subset="profile_id", keep="first", maintain_order=True)
    missing = pl.any_horizontal(pl.col(c).is_null() for c in ("toughness", "save", "wounds"))
    skipped = sorted(unique.filter(missing)["profile_id"].to_list())
    usable = unique.filter(~missing).with_columns(_target_columns(unique, anti_keywords))
    key = [*TARGET_KEY, *[f"has_{k}" for k in anti_keywords]]
    ids, distinct = _assign_keys(usable, "profile_id", key, "tkey")
    base_ids, base = _assign_keys(usable, "profile_id", list(TARGET_BASE_KEY), "tkey_base")
    unit_key = [*TARGET_UNIT_KEY, *[f"has_{k}" for k in anti_keywords]]
    unit_ids, units = _assign_keys(usable, "profile_id", unit_key, "tkey_unit")
    ids = ids.join(base_ids, on="profile_id", how="left").join(unit_ids, on="profile_id", how="left")
    return TargetProfiles(
        ids.sort("tkey", "profile_id"), distinct, base, units, skipped, targets.height - unique.height
    )
