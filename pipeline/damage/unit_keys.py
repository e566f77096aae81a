"""What `models_slain` and `wounds_lost` depend on, split in two keys computed on distinct values only.

- A **count key**: the wound-count distribution of one model's attacks. It reads
  the effective weapon's count part (Attacks, Rapid Fire and Sustained Hits dice,
  Blast, skill and hit modifiers, Lethal Hits, Strength dice, Lance, Twin-linked,
  Anti, Devastating Wounds) and, from the target, only Toughness, Stealth (ranged
  attacks that roll to hit), Blast's ⌊unit_size / 5⌋ and the Anti keywords it has
  (as the Critical Wound threshold).
- A **loss key**: what one wound does and how much the unit can lose. It reads
  the save roll needed (Sv, AP, cover, the invulnerable save of the weapon's
  kind), the pmf of wounds lost per damaging wound (Damage and Melta dice, halve
  damage, damage reduction, FNP), W and unit_size.

A cell is one (count key, loss key) pair: its outputs are the count pmf dotted
with the loss key's tables (`unit_results.py`). Keys are found on grids of
distinct weapon parts x distinct target parts with integer codes (numpy), never
per cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.damage.dice_tables import MAX_TOUGHNESS, WOUND_NEEDS
from pipeline.damage.profiles import distinct_rows
from pipeline.damage.ragged import FloatArray, IntArray
from pipeline.damage.unit_tables import lost_pmfs
from pipeline.damage.wound_counts import COUNT_COLUMNS

#: Effective weapon columns the count key reads (plus every `anti_<KEYWORD>`).
WEAPON_COUNT_PART: tuple[str, ...] = (
    "att_n", "att_sides", "att_plus", "rf_n", "rf_sides", "rf_plus", "sus_n", "sus_sides", "sus_plus", "blast",
    "auto_hit", "skill", "hit_bonus", "unseen", "ranged", "lethal_hits", "sk", "wound_bonus", "twin_linked",
    "devastating_wounds",
)  # fmt: skip
#: Effective weapon columns the loss key reads.
WEAPON_LOSS_PART: tuple[str, ...] = (
    "ranged", "ap", "cover", "dmg_n", "dmg_sides", "dmg_plus", "mel_n", "mel_sides", "mel_plus",
)  # fmt: skip
#: Target columns the count key reads (plus every `has_<KEYWORD>`), and the loss key.
TARGET_COUNT_PART: tuple[str, ...] = ("toughness", "stealth", "blast_bonus")
TARGET_LOSS_PART: tuple[str, ...] = (
    "save", "inv_ranged", "inv_melee", "fnp", "reduction", "halve", "wounds", "models",
)  # fmt: skip

_NO_CRIT = 7


def _codes(columns: list[IntArray], radices: list[int]) -> IntArray:
    """Mixed-radix integer code of equally shaped integer arrays."""
    code = np.zeros_like(columns[0], dtype=np.int64)
    for column, radix in zip(columns, radices, strict=True):
        code = code * radix + column.astype(np.int64)
    return code


@dataclass(frozen=True)
class KeyGrid:
    """Distinct keys of a [weapon part, target part] grid: `of[w, t]` the key, `frame` one row per key."""

    of: IntArray
    frame: pl.DataFrame


def unique_grid(code: IntArray) -> tuple[IntArray, IntArray]:
    """(key per cell, flat index of each key's first cell)."""
    _, first, inverse = np.unique(code.ravel(), return_index=True, return_inverse=True)
    return inverse.reshape(code.shape).astype(np.int64), first.astype(np.int64)


def need_classes(needs: FloatArray) -> IntArray:
    """[strength key, Toughness] -> id of its wound-need distribution: S4 against T5, T6 or T7 is one class."""
    _, classes = np.unique(needs, axis=0, return_inverse=True)
    return classes.reshape(-1, MAX_TOUGHNESS + 1).astype(np.int64)


def count_keys(weapons: pl.DataFrame, targets: pl.DataFrame, anti: list[str], needs: FloatArray) -> KeyGrid:
    """Count keys of distinct weapon count parts x distinct target count parts, with COUNT_COLUMNS.

    Strength and Toughness enter only as the wound-need distribution they give (`need_classes`).
    """
    w = {c: weapons[c].to_numpy() for c in weapons.columns}
    t = {c: targets[c].to_numpy() for c in targets.columns}
    attacks = (w["att_n"] * w["att_sides"] + w["att_plus"] + w["rf_n"] * w["rf_sides"] + w["rf_plus"] > 0)[:, None]
    crit = np.full((weapons.height, targets.height), 6)
    for k in anti:
        crit = np.minimum(crit, np.where(t[f"has_{k}"][None, :], w[f"anti_{k}"][:, None], _NO_CRIT))
    toughness = np.broadcast_to(np.clip(t["toughness"], 1, MAX_TOUGHNESS)[None, :], crit.shape)
    classes = need_classes(needs)
    need = classes[w["sk"][:, None], toughness]
    stealth = t["stealth"][None, :] & w["ranged"][:, None] & ~w["auto_hit"][:, None]
    bonus = np.where(w["blast"][:, None], t["blast_bonus"][None, :], 0)
    grid = [np.where(attacks, v, d) for v, d in ((need, 0), (stealth, 0), (bonus, 0), (crit, 6))]  # no attack: one key
    _, base = distinct_rows(weapons, [c for c in weapons.columns if c != "sk"])
    weapon_index = np.broadcast_to(base[:, None], crit.shape)
    radices = [
        int(base.max(initial=0)) + 1,
        int(classes.max(initial=0)) + 1,
        2,
        int(bonus.max(initial=0)) + 1,
        _NO_CRIT + 1,
    ]
    of, first = unique_grid(_codes([weapon_index, *grid], radices))
    _, stealth_at, bonus_at, crit_at = (g.ravel()[first] for g in grid)
    rows = weapons[first // crit.shape[1]]
    return KeyGrid(of, _count_frame(rows, toughness.ravel()[first], stealth_at, bonus_at, crit_at, needs))


def _count_frame(
    rows: pl.DataFrame, toughness: IntArray, stealth: IntArray, bonus: IntArray, crit: IntArray, needs: FloatArray
) -> pl.DataFrame:
    """COUNT_COLUMNS of each count key: the hit chances and the wound-need weights resolved."""
    modifier = np.clip(rows["hit_bonus"].to_numpy() - stealth, -1, 1)
    lowest = np.where(rows["unseen"].to_numpy(), 4, 2)
    need = np.clip(rows["skill"].to_numpy() - modifier, lowest, 6)
    auto = rows["auto_hit"].to_numpy()
    weights = needs[rows["sk"].to_numpy() * (MAX_TOUGHNESS + 1) + np.maximum(toughness, 1)]
    frame = rows.select(
        "att_n", "att_sides", (pl.col("att_plus") + pl.Series(bonus)).alias("att_plus"),
        "rf_n", "rf_sides", "rf_plus", "sus_n", "sus_sides", "sus_plus",
        pl.Series("p_hit", np.where(auto, 1.0, (7 - need) / 6.0)),
        pl.Series("p_crit", np.where(auto, 0.0, 1.0 / 6.0)),
        pl.col("lethal_hits").alias("lethal"),
        *[pl.Series(f"need_{n}", weights[:, i]) for i, n in enumerate(WOUND_NEEDS)],
        "wound_bonus", pl.Series("crit", crit), pl.col("twin_linked").alias("twin"),
        pl.col("devastating_wounds").alias("dev"),
    )  # fmt: skip
    return frame.select(COUNT_COLUMNS)


@dataclass(frozen=True)
class LossKeys:
    """Loss keys (`grid.frame`: lost_class, need, wounds, models) and the loss pmf of each lost class."""

    grid: KeyGrid
    lost: FloatArray


def loss_keys(weapons: pl.DataFrame, targets: pl.DataFrame) -> LossKeys:
    """Loss keys of distinct weapon loss parts x distinct target loss parts.

    The Damage side enters only as the pmf of wounds lost per damaging wound (`lost_pmfs`): D1 against
    -1 damage or halving is still D1, so those share a class.
    """
    dice, dice_of = distinct_rows(weapons, ["dmg_n", "dmg_sides", "dmg_plus", "mel_n", "mel_sides", "mel_plus"])
    damage, damage_of = distinct_rows(targets, ["halve", "reduction", "fnp"])
    lost = lost_pmfs(dice.join(damage, how="cross", maintain_order="left_right"))
    table, classes = np.unique(lost, axis=0, return_inverse=True)
    lost_class = classes.reshape(dice.height, damage.height)
    w = {c: weapons[c].to_numpy()[:, None] for c in ("ranged", "ap", "cover")}
    t = {c: targets[c].to_numpy()[None, :] for c in ("save", "inv_ranged", "inv_melee", "wounds", "models")}
    cover = w["cover"] & ~((t["save"] <= 3) & (w["ap"] == 0))
    armour = np.clip(t["save"] - w["ap"] - cover, 2, 7)
    need = np.minimum(armour, np.where(w["ranged"], t["inv_ranged"], t["inv_melee"]))
    shape = need.shape
    grid = [
        lost_class[dice_of[:, None], damage_of[None, :]],
        need,
        *(np.broadcast_to(t[c], shape) for c in ("wounds", "models")),
    ]
    radices = [len(table), 8, int(t["wounds"].max(initial=0)) + 1, int(t["models"].max(initial=0)) + 1]
    of, first = unique_grid(_codes(grid, radices))
    columns = {name: g.ravel()[first] for name, g in zip(("lost_class", "need", "wounds", "models"), grid, strict=True)}
    return LossKeys(KeyGrid(of, pl.DataFrame(columns)), table)
