"""The attack sequence of DAMAGE_RULES.md as Polars expressions.

Evaluated on the cross product distinct weapon profile × distinct defensive
profile × scenario; every expression is one step of the sequence and reads the
columns the steps before it produced. All values are expectations per model
using the weapon once. Probabilities of a D6 roll of `need`+ are (7 - need) / 6.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from pipeline.damage.dice_tables import DamageDice, DamageTarget, damage_table
from pipeline.damage.profiles import TargetProfiles, WeaponProfiles
from pipeline.damage.scenarios import Scenario, scenarios_frame

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
    """Step 1 and the visibility rule: can the weapon shoot, how many attacks."""
    cannot = _c("ranged") & ~_c("target_visible") & (~_c("indirect_fire") | _c("auto_hit"))
    bonus = _c("blast").cast(pl.Float64) * _c("blast_bonus") + _c("half_range") * _c("rapid_fire")
    return [
        (~cannot).alias("can_attack"),
        (_c("ranged") & _c("indirect_fire") & ~_c("target_visible")).alias("unseen"),
        pl.when(cannot).then(0.0).otherwise(_c("attacks_mean") + bonus).alias("attacks"),
    ]


def hit_steps() -> list[pl.Expr]:
    """Step 2: hit probability with clamped modifiers, Critical Hits, Sustained and Lethal Hits."""
    modifier = (
        (_c("heavy") & _c("stationary")).cast(pl.Int64)
        - (_c("stealth") & _c("ranged")).cast(pl.Int64)
        - _c("unseen").cast(pl.Int64)
    )
    lowest = pl.when(_c("unseen")).then(4).otherwise(2)
    need = _clip(_c("skill") - _clip(modifier, -1, 1), lowest, 6)
    p_hit = pl.when(_c("auto_hit")).then(1.0).otherwise(_p(need))
    p_crit = pl.when(_c("auto_hit")).then(0.0).otherwise(1.0 / 6.0)
    return [
        (_c("attacks") * (p_hit + p_crit * _c("sustained_hits"))).alias("hits"),
        (_c("attacks") * p_crit * _c("lethal_hits").cast(pl.Float64)).alias("auto_wounds"),
    ]


def _wound_need() -> pl.Expr:
    s, t = _c("strength"), _c("toughness")
    table = (
        pl.when(s >= 2 * t).then(2).when(s > t).then(3).when(s == t).then(4)
        .when(2 * s <= t).then(6).otherwise(5)
    )  # fmt: skip
    return _clip(table - (_c("lance") & _c("charged")).cast(pl.Int64), 2, 6)


def _critical_wound_need(anti_keywords: Sequence[str]) -> pl.Expr:
    """6, or the lowest Anti threshold whose keyword the target has."""
    antis = [pl.when(_c(f"has_{k}")).then(_c(f"anti_{k}")).otherwise(7) for k in anti_keywords]
    return pl.min_horizontal(pl.lit(6), *antis)


def wound_steps(anti_keywords: Sequence[str]) -> list[pl.Expr]:
    """Step 3: wound roll (S vs T, Lance, Anti crits, Twin-linked re-roll of failures)."""
    crit = _critical_wound_need(anti_keywords)
    p_success = _p(pl.min_horizontal(_wound_need(), crit))
    reroll = pl.when(_c("twin_linked")).then(2.0 - p_success).otherwise(1.0)
    rolls = _c("hits") - _c("auto_wounds")
    return [
        (rolls * p_success * reroll + _c("auto_wounds")).alias("wounds"),
        (rolls * _p(crit) * reroll).alias("critical_wounds"),
    ]


def save_steps() -> list[pl.Expr]:
    """Steps 4-5: Devastating Wounds skip the save; the rest face the best applicable save."""
    cover = (
        (_c("cover") | _c("unseen")) & _c("ranged") & ~_c("ignores_cover")
        & ~((_c("save") <= 3) & (_c("ap") == 0))
    )  # fmt: skip
    armour = _clip(_c("save") - _c("ap") - cover.cast(pl.Int64), 2, 7)
    invuln_applies = pl.when(_c("ranged")).then(_c("inv_ranged")).otherwise(_c("inv_melee"))
    need = pl.min_horizontal(armour, pl.when(invuln_applies).then(_c("invuln")).otherwise(7))
    devastating = _c("critical_wounds") * _c("devastating_wounds").cast(pl.Float64)
    return [
        devastating.alias("devastating"),
        ((_c("wounds") - devastating) * (need - 1) / 6.0).alias("unsaved"),
    ]


def damage_steps(table: pl.DataFrame, target_keys: int) -> list[pl.Expr]:
    """Steps 6-7: per-attack damage expectations looked up in the dice table."""
    weapon_key = pl.when(_c("half_range")).then(_c("dk_melta")).otherwise(_c("dk_plain"))
    index = weapon_key * target_keys + _c("dk_target")

    def lookup(name: str) -> pl.Expr:
        return pl.lit(table[name]).gather(index)

    attacks_damaged = _c("unsaved") + _c("devastating")
    return [
        (_c("devastating") * lookup("mean")).alias("mortal_wounds"),
        (attacks_damaged * lookup("after_fnp")).alias("damage"),
        (attacks_damaged * lookup("capped")).alias("damage_capped"),
        pl.when(_c("hazardous") & _c("can_attack")).then(HAZARDOUS_MORTALS).otherwise(0.0)
        .alias("self_mortal_wounds"),
    ]  # fmt: skip


_PLAIN = ["dmg_n", "dmg_sides", "dmg_plus"]
_MELTA = [*_PLAIN, "mel_n", "mel_sides", "mel_plus"]
_TARGET = ["reduction", "fnp", "wounds"]


def _damage_keys(
    weapons: pl.DataFrame, targets: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Number the distinct damage dice (with and without Melta) and target damage stats.

    Returns the profiles with `dk_plain` / `dk_melta` / `dk_target` columns and the
    flattened dense table, row `dk_weapon * n_target_keys + dk_target`.
    """
    plain: list[DamageDice] = [(*r, 0, 0, 0) for r in weapons.select(_PLAIN).iter_rows()]
    melta: list[DamageDice] = list(weapons.select(_MELTA).iter_rows())
    on_target: list[DamageTarget] = list(targets.select(_TARGET).iter_rows())
    weapon_keys = sorted(set(plain) | set(melta))
    target_keys = sorted(set(on_target))
    w_index = {k: i for i, k in enumerate(weapon_keys)}
    t_index = {k: i for i, k in enumerate(target_keys)}
    weapons = weapons.with_columns(
        pl.Series("dk_plain", [w_index[k] for k in plain], dtype=pl.Int64),
        pl.Series("dk_melta", [w_index[k] for k in melta], dtype=pl.Int64),
    )
    targets = targets.with_columns(pl.Series("dk_target", [t_index[k] for k in on_target], dtype=pl.Int64))
    dense = damage_table(weapon_keys, target_keys)
    table = pl.DataFrame({name: np.ravel(getattr(dense, name)) for name in ("mean", "after_fnp", "capped")})
    return weapons, targets, table


def distinct_results(
    weapons: WeaponProfiles, targets: TargetProfiles, scenarios: Sequence[Scenario]
) -> pl.DataFrame:
    """scenario_idx, wkey, tkey and the outputs for every distinct pair under every scenario."""
    w, t, table = _damage_keys(weapons.profiles, targets.profiles)
    target_keys = max(1, t.select(_TARGET).n_unique()) if t.height else 1
    anti = weapons.abilities.anti_keywords
    frame = (
        scenarios_frame(scenarios).lazy()
        .join(w.lazy(), how="cross")
        .join(t.lazy(), how="cross")
        .with_columns(attack_steps())
        .with_columns(hit_steps())
        .with_columns(wound_steps(anti))
        .with_columns(save_steps())
        .with_columns(damage_steps(table, target_keys))
        .select("scenario_idx", "wkey", "tkey", *OUTPUTS)
    )  # fmt: skip
    return frame.collect()
