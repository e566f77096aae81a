"""`models_slain` and `wounds_lost`: one model's attacks with a weapon against a unit of `unit_size` models.

Rules: DAMAGE_RULES.md, "Unit level" (sequential allocation on one line of
identical models, as `pipeline.units` does for one weapon step). The result of a
cell depends on a count key and a loss key (`unit_keys.py`); this module finds
the distinct (count key, loss key) pairs of every effective weapon x target,
computes each count pmf (`wound_counts.py`) and each loss table
(`unit_tables.py`) once, dots them per distinct pair, and lays the results out
like the engine's other outputs: [effective weapon key, target row].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.damage.effective import EffectiveWeapons
from pipeline.damage.engine import DamageKeys
from pipeline.damage.profiles import TargetProfiles, distinct_rows
from pipeline.damage.ragged import FloatArray, pair_dots
from pipeline.damage.unit_keys import (
    TARGET_COUNT_PART,
    TARGET_LOSS_PART,
    WEAPON_COUNT_PART,
    WEAPON_LOSS_PART,
    count_keys,
    loss_keys,
    unique_grid,
)
from pipeline.damage.unit_tables import loss_tables
from pipeline.damage.wound_counts import count_pmfs

UNIT_OUTPUTS: tuple[str, ...] = ("models_slain", "wounds_lost")


@dataclass(frozen=True)
class UnitKeyCounts:
    """How much distinct work the unit outputs took (for the report and the benchmark)."""

    weapon_parts: int
    target_parts: int
    count_keys: int
    loss_keys: int
    distinct_pairs: int


def _weapon_frame(effective: EffectiveWeapons, keys: DamageKeys, anti: list[str]) -> pl.DataFrame:
    """Every effective profile (global ekey order) with its strength key and every Anti column."""
    frames = []
    for group in effective.groups:
        frame = group.profiles.with_columns(pl.col("ekey").cast(pl.Int64) + group.offset)
        missing = [pl.lit(7).alias(f"anti_{k}") for k in anti if f"anti_{k}" not in frame.columns]
        frames.append(frame.with_columns(*missing, keys.strength_column(frame)))
    columns = ["ekey", *WEAPON_COUNT_PART, *WEAPON_LOSS_PART, *[f"anti_{k}" for k in anti]]
    return pl.concat([f.select(list(dict.fromkeys(columns))) for f in frames], how="vertical_relaxed").sort("ekey")


def unit_blocks(
    effective: EffectiveWeapons, targets: TargetProfiles, keys: DamageKeys, anti: list[str]
) -> tuple[dict[str, FloatArray], UnitKeyCounts]:
    """models_slain and wounds_lost as [global effective key, target row] (rows in `targets.ids` order)."""
    weapons = _weapon_frame(effective, keys, anti)
    count_part = [*WEAPON_COUNT_PART, *[f"anti_{k}" for k in anti]]
    weapon_counts, weapon_count_of = distinct_rows(weapons, count_part)
    weapon_losses, weapon_loss_of = distinct_rows(weapons, list(WEAPON_LOSS_PART))
    pair_code = weapon_count_of * max(1, weapon_losses.height) + weapon_loss_of
    parts, part_of = np.unique(pair_code, return_inverse=True)
    part_counts, part_losses = parts // max(1, weapon_losses.height), parts % max(1, weapon_losses.height)

    units = targets.units
    target_counts, target_count_of = distinct_rows(units, [*TARGET_COUNT_PART, *[f"has_{k}" for k in anti]])
    target_losses, target_loss_of = distinct_rows(units, list(TARGET_LOSS_PART))
    counts = count_keys(weapon_counts, target_counts, anti, keys.needs.to_numpy())
    losses = loss_keys(weapon_losses, target_losses)

    ck = counts.of[part_counts[:, None], target_count_of[None, :]]
    lk = losses.of[part_losses[:, None], target_loss_of[None, :]]
    pair_of, first = unique_grid(ck * max(1, losses.frame.height) + lk)
    pair_ck, pair_lk = ck.ravel()[first], lk.ravel()[first]

    pmfs = count_pmfs(counts.frame)
    rows, cols = np.ones(losses.frame.height, np.int64), np.ones(losses.frame.height, np.int64)
    np.maximum.at(rows, pair_lk, pmfs.rows[pair_ck])
    np.maximum.at(cols, pair_lk, pmfs.cols[pair_ck])
    tables = loss_tables(losses.frame.with_columns(pl.Series("rows", rows), pl.Series("cols", cols)))
    results = pair_dots(pmfs, tables, pair_ck, pair_lk)

    target_rows = targets.ids.join(units.select("tkey_unit").with_row_index("_u"), on="tkey_unit", how="left")
    unit_of_row = target_rows["_u"].cast(pl.Int64).to_numpy()
    blocks = {  # [weapon part, target part] first, then rows (effective keys 0..count-1) and target columns
        name: np.take(np.take(np.take(values, pair_of), part_of, axis=0), unit_of_row, axis=1)
        for name, values in zip(UNIT_OUTPUTS, results, strict=True)
    }
    sizes = UnitKeyCounts(len(parts), units.height, counts.frame.height, losses.frame.height, len(pair_ck))
    return blocks, sizes
