"""`models_slain` and `wounds_lost`: one model's attacks with a weapon against a unit of `unit_size` models.

Rules: DAMAGE_RULES.md, "Unit level" (sequential allocation on one line of
identical models, as `pipeline.units` does for one weapon step). The result of a
cell depends on a count key and a loss key (`unit_keys.py`); this module finds
the distinct (count key, loss key) pairs of every effective weapon x target,
computes each count pmf (`wound_counts.py`) and each loss table
(`unit_tables.py`) once, dots them per distinct pair, and keeps the results as
a [weapon part, target part] grid that the matrix gathers per scenario
(`UnitGrid.gather`): no [effective weapon, target] copy is ever built.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.damage.buffers import Buffers, take_rows_columns
from pipeline.damage.effective import EffectiveWeapons
from pipeline.damage.engine import DamageKeys
from pipeline.damage.profiles import TargetProfiles, distinct_rows
from pipeline.damage.ragged import FloatArray, IntArray, pair_dots
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


@dataclass(frozen=True)
class UnitGrid:
    """Each unit output per [weapon part, target part]; `part_of[effective key]`, `unit_of[target row]`."""

    values: dict[str, FloatArray]
    part_of: IntArray
    unit_of: IntArray

    def gather(self, name: str, keys: IntArray, targets: IntArray | None, buffers: Buffers | None) -> FloatArray:
        """[len(keys), targets] of output `name` for these effective keys (into reused `buffers` when given)."""
        columns = self.unit_of if targets is None else self.unit_of[targets]
        return take_rows_columns(self.values[name], self.part_of[keys], columns, buffers, name)


def _weapon_frame(effective: EffectiveWeapons, keys: DamageKeys, anti: list[str]) -> pl.DataFrame:
    """Every effective profile (global ekey order) with its strength key and every Anti column."""
    frames = []
    for group in effective.groups:
        frame = group.profiles.with_columns(pl.col("ekey").cast(pl.Int64) + group.offset)
        missing = [pl.lit(7).alias(f"anti_{k}") for k in anti if f"anti_{k}" not in frame.columns]
        frames.append(frame.with_columns(*missing, keys.strength_column(frame)))
    columns = ["ekey", *WEAPON_COUNT_PART, *WEAPON_LOSS_PART, *[f"anti_{k}" for k in anti]]
    return pl.concat([f.select(list(dict.fromkeys(columns))) for f in frames], how="vertical_relaxed").sort("ekey")


def unit_grid(
    effective: EffectiveWeapons, targets: TargetProfiles, keys: DamageKeys, anti: list[str]
) -> tuple[UnitGrid, UnitKeyCounts]:
    """models_slain and wounds_lost of every (effective weapon, target row in `targets.ids` order)."""
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
    loss = loss_keys(weapon_losses, target_losses)
    losses = loss.grid

    ck = counts.of[part_counts[:, None], target_count_of[None, :]]
    lk = losses.of[part_losses[:, None], target_loss_of[None, :]]
    pair_of, first = unique_grid(ck * max(1, losses.frame.height) + lk)
    pair_ck, pair_lk = ck.ravel()[first], lk.ravel()[first]

    pmfs = count_pmfs(counts.frame)
    rows, cols = np.ones(losses.frame.height, np.int64), np.ones(losses.frame.height, np.int64)
    np.maximum.at(rows, pair_lk, pmfs.rows[pair_ck])
    np.maximum.at(cols, pair_lk, pmfs.cols[pair_ck])
    tables = loss_tables(losses.frame.with_columns(pl.Series("rows", rows), pl.Series("cols", cols)), loss.lost)
    results = pair_dots(pmfs, tables, pair_ck, pair_lk)

    unit_of_row = targets.ids["tkey_unit"].cast(pl.Int64).to_numpy()  # `units` row i is tkey_unit i
    grids = {name: np.take(values, pair_of) for name, values in zip(UNIT_OUTPUTS, results, strict=True)}
    sizes = UnitKeyCounts(len(parts), units.height, counts.frame.height, losses.frame.height, len(pair_ck))
    return UnitGrid(grids, part_of, unit_of_row), sizes  # weapons are in ekey order: part_of[ekey]
