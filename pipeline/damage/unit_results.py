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

import functools
from dataclasses import astuple, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.cache.entries import warn_unfit
from pipeline.cache.fingerprint import code_fingerprint, key_of, rows_digest
from pipeline.cache.parts import PartCache
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

#: Cache kind of the grid (`<cache>/parts/unit_grid/`): one entry, keyed by everything it is computed from.
UNIT_GRID_KIND = "unit_grid"


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
    effective: EffectiveWeapons,
    targets: TargetProfiles,
    keys: DamageKeys,
    anti: list[str],
    cache: PartCache | None = None,
) -> tuple[UnitGrid, UnitKeyCounts]:
    """models_slain and wounds_lost of every (effective weapon, target row in `targets.ids` order). `cache`: a grid
    computed from the same inputs is read back instead (no points enter it: a points change computes none)."""
    weapons = _weapon_frame(effective, keys, anti)
    key = _grid_key(weapons, targets, keys, anti) if cache is not None and cache.folder is not None else None
    found = _cached_grid(cache, key, weapons.height, targets.ids.height) if cache is not None and key else None
    if found is not None:
        return found
    grid, sizes = _computed_grid(weapons, targets, keys, anti)
    if cache is not None and key is not None:
        meta = {"sizes": list(astuple(sizes)), "effective_rows": len(grid.part_of), "target_rows": len(grid.unit_of)}
        cache.keep_written(key, functools.partial(_write_grid, grid=grid), meta)
    return grid, sizes


def _grid_key(weapons: pl.DataFrame, targets: TargetProfiles, keys: DamageKeys, anti: list[str]) -> str:
    """The code, the weapons' count and loss columns, the target units, which unit each target row is and which
    weapons need a strength key: all the grid is computed from."""
    return key_of(
        code_fingerprint(),
        UNIT_GRID_KIND,
        rows_digest(weapons),
        rows_digest(targets.units),
        rows_digest(targets.ids.select("tkey_unit")),
        rows_digest(keys.needs),
        *anti,
    )


def _write_grid(path: Path, grid: UnitGrid) -> None:
    """The arrays' bytes back to back (float64 values of each output, then int64 `part_of` and `unit_of`): read
    back with one read and no copy (`_cached_grid`); their shapes are in the entry's meta."""
    with path.open("wb") as out:
        for name in UNIT_OUTPUTS:
            out.write(np.ascontiguousarray(grid.values[name], dtype=np.float64).data)
        for array in (grid.part_of, grid.unit_of):
            out.write(np.ascontiguousarray(array, dtype=np.int64).data)


def _cached_grid(
    cache: PartCache, key: str, effective_rows: int, target_rows: int
) -> tuple[UnitGrid, UnitKeyCounts] | None:
    """The grid kept under `key`, or None: no entry, one whose file changed (`PartCache.get` warns), or one whose
    arrays do not fit these weapons and targets (warned here)."""
    found = cache.get(key)
    if found is None:
        return None
    blob, placed = found
    try:
        sizes = UnitKeyCounts(*(int(v) for v in placed.meta["sizes"]))
        if (placed.meta["effective_rows"], placed.meta["target_rows"]) != (effective_rows, target_rows):
            raise ValueError(f"the grid is of {placed.meta['effective_rows']} x {placed.meta['target_rows']} rows")
        data, cells = blob.read_bytes(), sizes.weapon_parts * sizes.target_parts
        counts = [cells] * len(UNIT_OUTPUTS) + [effective_rows, target_rows]
        if len(data) != 8 * sum(counts):
            raise ValueError(f"{len(data)} bytes for arrays of {sum(counts)} values")
        offsets = np.cumsum([0, *counts]) * 8
        values = {
            name: np.frombuffer(data, np.float64, cells, int(offsets[i])).reshape(
                sizes.weapon_parts, sizes.target_parts
            )
            for i, name in enumerate(UNIT_OUTPUTS)
        }
        ints = [np.frombuffer(data, np.int64, n, int(o)) for n, o in zip(counts[-2:], offsets[-3:-1], strict=True)]
    except (OSError, KeyError, ValueError, TypeError) as exc:
        warn_unfit(UNIT_GRID_KIND, key, exc)
        return None
    return UnitGrid(values, ints[0], ints[1]), sizes


def _computed_grid(
    weapons: pl.DataFrame, targets: TargetProfiles, keys: DamageKeys, anti: list[str]
) -> tuple[UnitGrid, UnitKeyCounts]:
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
