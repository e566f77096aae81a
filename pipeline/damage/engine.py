"""The attack sequence of DAMAGE_RULES.md as Polars expressions.

Evaluated on the cross product of distinct effective weapon profiles (the
scenario folded in, `effective.py`) and distinct defensive profiles; every
expression is one step of the sequence and reads the columns the steps before it
produced. All values are expectations per model
using the weapon once. Probabilities of a D6 roll of `need`+ are (7 - need) / 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.damage.dice_tables import (
    MAX_TOUGHNESS,
    WOUND_NEEDS,
    DamageDice,
    DamageTarget,
    StrengthDice,
    damage_table,
    wound_need_table,
)

OUTPUTS: tuple[str, ...] = (
    "attacks", "hits", "wounds", "mortal_wounds", "unsaved", "damage", "damage_capped",
    "self_mortal_wounds",
)  # fmt: skip

#: Expected Hazardous self-damage per weapon use: a 1 in 6 test fails -> 3 mortal wounds.
HAZARDOUS_MORTALS = 3.0 / 6.0

_c = pl.col


def _clip(expr: pl.Expr, low: pl.Expr | int, high: pl.Expr | int) -> pl.Expr:
    return pl.min_horizontal(pl.max_horizontal(expr, low), high)


def _p(need: pl.Expr) -> pl.Expr:
    """P(D6 >= need) for need in 2..7 (7: never)."""
    return (7 - need) / 6.0


def attack_steps() -> list[pl.Expr]:
    """Step 1: the weapon's attacks (Rapid Fire already folded in) plus Blast's bonus."""
    return [(_c("base_attacks") + _c("blast").cast(pl.Float64) * _c("blast_bonus")).alias("attacks")]


def hit_steps() -> list[pl.Expr]:
    """Step 2: hit probability with clamped modifiers, Critical Hits, Sustained and Lethal Hits."""
    modifier = _c("hit_bonus") - (_c("stealth") & _c("ranged")).cast(pl.Int64)
    lowest = pl.when(_c("unseen")).then(4).otherwise(2)  # Indirect Fire: unmodified 1-3 fail
    need = _clip(_c("skill") - _clip(modifier, -1, 1), lowest, 6)
    p_hit = pl.when(_c("auto_hit")).then(1.0).otherwise(_p(need))
    p_crit = pl.when(_c("auto_hit")).then(0.0).otherwise(1.0 / 6.0)
    return [
        (_c("attacks") * (p_hit + p_crit * _c("sustained_hits"))).alias("hits"),
        (_c("attacks") * p_crit * _c("lethal_hits").cast(pl.Float64)).alias("auto_wounds"),
    ]


def _critical_wound_need(anti_keywords: Sequence[str]) -> pl.Expr:
    """6, or the lowest Anti threshold whose keyword the target has."""
    antis = [pl.when(_c(f"has_{k}")).then(_c(f"anti_{k}")).otherwise(7) for k in anti_keywords]
    return pl.min_horizontal(pl.lit(6), *antis)


def wound_steps(anti_keywords: Sequence[str], needs: pl.DataFrame) -> list[pl.Expr]:
    """Step 3: wound roll (S vs T, Lance, Anti crits, Twin-linked re-roll of failures).

    Strength is rolled per attack, so the success chance is averaged over the wound
    needs its distribution gives (`needs`: one row per Strength key and Toughness);
    a fixed Strength has a single need with probability 1.
    """
    crit = _critical_wound_need(anti_keywords)
    index = _c("sk") * (MAX_TOUGHNESS + 1) + _clip(_c("toughness"), 1, MAX_TOUGHNESS)
    success, success_rerolled, rerolls = pl.lit(0.0), pl.lit(0.0), pl.lit(0.0)
    for need in WOUND_NEEDS:
        weight = pl.lit(needs[f"need_{need}"]).gather(index)
        p = _p(pl.min_horizontal(_clip(pl.lit(need) - _c("wound_bonus"), 2, 6), crit))
        success = success + weight * p
        success_rerolled = success_rerolled + weight * p * (2.0 - p)
        rerolls = rerolls + weight * (2.0 - p)
    twin = _c("twin_linked")
    rolls = _c("hits") - _c("auto_wounds")
    return [
        (rolls * pl.when(twin).then(success_rerolled).otherwise(success) + _c("auto_wounds")).alias("wounds"),
        (rolls * _p(crit) * pl.when(twin).then(rerolls).otherwise(1.0)).alias("critical_wounds"),
    ]


def save_steps() -> list[pl.Expr]:
    """Steps 4-5: Devastating Wounds skip the save; the rest face the best applicable save."""
    cover = _c("cover") & ~((_c("save") <= 3) & (_c("ap") == 0))
    armour = _clip(_c("save") - _c("ap") - cover.cast(pl.Int64), 2, 7)
    invuln = pl.when(_c("ranged")).then(_c("inv_ranged")).otherwise(_c("inv_melee"))
    need = pl.min_horizontal(armour, invuln)
    devastating = _c("critical_wounds") * _c("devastating_wounds").cast(pl.Float64)
    return [
        devastating.alias("devastating"),
        # Clamped: when every wound is a Critical Wound (a 6+ to wound) the difference is 0 up to rounding.
        (pl.max_horizontal(_c("wounds") - devastating, 0.0) * (need - 1) / 6.0).alias("unsaved"),
    ]


def damage_steps(table: pl.DataFrame, target_keys: int) -> list[pl.Expr]:
    """Steps 6-7: per-attack damage expectations looked up in the dice table."""
    index = _c("dk_weapon") * target_keys + _c("dk_target")

    def lookup(name: str) -> pl.Expr:
        return pl.lit(table[name]).gather(index)

    attacks_damaged = _c("unsaved") + _c("devastating")
    return [
        (_c("devastating") * lookup("mean")).alias("mortal_wounds"),
        (attacks_damaged * lookup("after_fnp")).alias("damage"),
        (attacks_damaged * lookup("capped")).alias("damage_capped"),
        pl.when(_c("hazardous")).then(HAZARDOUS_MORTALS).otherwise(0.0).alias("self_mortal_wounds"),
    ]


_WEAPON_DICE = ["dmg_n", "dmg_sides", "dmg_plus", "mel_n", "mel_sides", "mel_plus"]
_TARGET_DICE = ["reduction", "fnp", "wounds", "halve"]
_STRENGTH_DICE = ["str_n", "str_sides", "str_plus"]


@dataclass(frozen=True)
class DamageKeys:
    """Dense dice tables: damage (row dk_weapon * n_targets + dk_target) and wound needs
    (row sk * (MAX_TOUGHNESS + 1) + T), and the key of each dice row."""

    table: pl.DataFrame
    weapon: dict[DamageDice, int]
    target: dict[DamageTarget, int]
    needs: pl.DataFrame
    strength: dict[StrengthDice, int]

    def strength_column(self, frame: pl.DataFrame) -> pl.Series:
        rows = frame.select(_STRENGTH_DICE).iter_rows()
        return pl.Series("sk", [self.strength[r] for r in rows], dtype=pl.Int64)

    def weapon_column(self, frame: pl.DataFrame) -> pl.Series:
        rows = frame.select(_WEAPON_DICE).iter_rows()
        return pl.Series("dk_weapon", [self.weapon[r] for r in rows], dtype=pl.Int64)

    def target_column(self, frame: pl.DataFrame) -> pl.Series:
        rows = frame.select(_TARGET_DICE).iter_rows()
        return pl.Series("dk_target", [self.target[r] for r in rows], dtype=pl.Int64)


def damage_keys(weapons: Sequence[pl.DataFrame], targets: pl.DataFrame) -> DamageKeys:
    """Number every distinct (Damage, Melta) dice pair and (reduction, FNP, W, halve) key; tabulate them."""
    weapon_keys: list[DamageDice] = sorted({r for w in weapons for r in w.select(_WEAPON_DICE).iter_rows()})
    target_keys: list[DamageTarget] = sorted(set(targets.select(_TARGET_DICE).iter_rows()))
    dense = damage_table(weapon_keys, target_keys)
    table = pl.DataFrame({name: np.ravel(getattr(dense, name)) for name in ("mean", "after_fnp", "capped")})
    strength_keys: list[StrengthDice] = sorted({r for w in weapons for r in w.select(_STRENGTH_DICE).iter_rows()})
    need_table = wound_need_table(strength_keys)
    needs = pl.DataFrame({f"need_{n}": need_table[:, i] for i, n in enumerate(WOUND_NEEDS)})
    return DamageKeys(
        table,
        {k: i for i, k in enumerate(weapon_keys)},
        {k: i for i, k in enumerate(target_keys)},
        needs,
        {k: i for i, k in enumerate(strength_keys)},
    )


def distinct_plan(
    weapons: pl.DataFrame, targets: pl.DataFrame, anti_keywords: Sequence[str], keys: DamageKeys
) -> pl.LazyFrame:
    """The query: ekey, tkey and the outputs for every (effective weapon, defensive profile) pair.

    Rows come weapon-major in the frames' order (`maintain_order="left_right"`).
    """
    weapons = weapons.with_columns(keys.weapon_column(weapons), keys.strength_column(weapons))
    targets = targets.with_columns(keys.target_column(targets))
    if "blast_bonus" not in targets.columns:
        targets = targets.with_columns(pl.lit(0).alias("blast_bonus"))
    return (
        weapons.lazy()
        .join(targets.lazy(), how="cross", maintain_order="left_right")
        .with_columns(attack_steps())
        .with_columns(hit_steps())
        .with_columns(wound_steps(anti_keywords, keys.needs))
        .with_columns(save_steps())
        .with_columns(damage_steps(keys.table, max(1, len(keys.target))))
        .select("ekey", "tkey", *OUTPUTS)
    )


def distinct_results(
    weapons: pl.DataFrame, targets: pl.DataFrame, anti_keywords: Sequence[str], keys: DamageKeys
) -> pl.DataFrame:
    """`distinct_plan` collected."""
    return distinct_plan(weapons, targets, anti_keywords, keys).collect()
