"""Weapon profiles with each scenario folded in, split into plain and Blast/Anti groups
(docs/damage.md#how-it-is-computed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pipeline.damage.scenarios import Scenario, scenarios_frame

#: Effective weapon columns the engine reads (plus `anti_<KEYWORD>` columns in the special group).
EFFECTIVE_KEY: tuple[str, ...] = (
    "ranged", "can_attack", "unseen", "base_attacks", "blast", "skill", "auto_hit", "hit_bonus",
    "sustained_hits", "lethal_hits", "str_n", "str_sides", "str_plus", "wound_bonus", "twin_linked",
    "devastating_wounds", "ap", "cover", "dmg_n", "dmg_sides", "dmg_plus", "mel_n", "mel_sides", "mel_plus",
    "hazardous", "att_n", "att_sides", "att_plus", "sus_n", "sus_sides", "sus_plus", "rf_n", "rf_sides", "rf_plus",
)  # fmt: skip

GROUPS = ("plain", "special")


@dataclass(frozen=True)
class WeaponGroup:
    """Distinct effective profiles of one group; global key = offset + local `ekey`."""

    name: str
    profiles: pl.DataFrame
    offset: int
    anti_keywords: list[str]


@dataclass(frozen=True)
class EffectiveWeapons:
    """The groups and the map (wkey, scenario_idx) -> global effective key `ekey`."""

    groups: list[WeaponGroup]
    keys: pl.DataFrame

    @property
    def count(self) -> int:
        return sum(g.profiles.height for g in self.groups)


def _fold_scenario() -> list[pl.Expr]:
    """Scenario flags -> weapon columns (DAMAGE_RULES.md steps 1-6 that depend on the situation)."""
    c = pl.col
    cannot = c("ranged") & ~c("target_visible") & (~c("indirect_fire") | c("auto_hit"))
    unseen = c("ranged") & c("indirect_fire") & ~c("target_visible") & ~cannot
    half = c("half_range")
    return [
        (~cannot).alias("can_attack"),
        unseen.alias("unseen"),
        pl.when(cannot).then(0.0).otherwise(c("attacks_mean") + half * c("rapid_fire")).alias("base_attacks"),
        (c("blast") & ~cannot).alias("blast"),
        ((c("heavy") & c("stationary")).cast(pl.Int64) - unseen.cast(pl.Int64)).alias("hit_bonus"),
        (c("lance") & c("charged")).cast(pl.Int64).alias("wound_bonus"),
        ((c("cover") | unseen) & c("ranged") & ~c("ignores_cover")).alias("cover"),
        *[pl.when(half).then(c(f"mel_{p}")).otherwise(0).alias(f"mel_{p}") for p in ("n", "sides", "plus")],
        *[pl.when(half & ~cannot).then(c(f"rf_{p}")).otherwise(0).alias(f"rf_{p}") for p in ("n", "sides", "plus")],
        *[pl.when(cannot).then(0).otherwise(c(f"att_{p}")).alias(f"att_{p}") for p in ("n", "sides", "plus")],
        (c("hazardous") & ~cannot).alias("hazardous"),
    ]


def effective_weapons(
    profiles: pl.DataFrame, scenarios: Sequence[Scenario], anti_keywords: list[str]
) -> EffectiveWeapons:
    """Distinct weapon profiles × scenarios -> distinct effective profiles per group."""
    anti = [f"anti_{k}" for k in anti_keywords]
    folded = (
        profiles.lazy()
        .join(scenarios_frame(scenarios).lazy().drop("scenario"), how="cross")
        .with_columns(_fold_scenario())
        .with_columns(
            (pl.col("blast") | pl.min_horizontal(pl.lit(7), *anti).lt(7)).alias("special"),
        )
        .collect()
    )
    groups, keys, offset = [], [], 0
    for name in GROUPS:
        part = folded.filter(pl.col("special") == (name == "special"))
        key = [*EFFECTIVE_KEY, *(anti if name == "special" else [])]
        distinct = part.select(key).unique().sort(key).with_row_index("ekey")
        keys.append(
            part.join(distinct, on=key, how="left").select(
                "wkey", "scenario_idx", (pl.col("ekey").cast(pl.Int64) + offset).alias("ekey")
            )
        )
        groups.append(WeaponGroup(name, distinct, offset, anti_keywords if name == "special" else []))
        offset += distinct.height
    return EffectiveWeapons(groups, pl.concat(keys).sort("wkey", "scenario_idx"))
