"""Compute on distinct profiles, publish on all: the `damage_matrix` table.

`prepare_damage` dedupes the inputs, folds the scenarios into effective weapon
profiles and evaluates the engine once per distinct pair; `DamageComputation.matrix`
(expand.py) then expands one scenario to every (weapon_id, profile_id). The full
Wahapedia matrix is ~11.5 M rows per scenario, so `write_damage_matrix` expands
and writes scenario by scenario.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.cache.parts import PartCache
from pipeline.damage.effective import EffectiveWeapons, effective_weapons
from pipeline.damage.engine import OUTPUTS, DamageKeys, damage_keys
from pipeline.damage.expand import (
    BlockFill,
    BoolArray,
    DamageComputation,
    FloatArray,
    IntArray,
    ReferenceBlocks,
    build_blocks,
    effective_key_arrays,
    write_partition,
)
from pipeline.damage.inputs import cost_per_copy
from pipeline.damage.matrix_files import file_ranges
from pipeline.damage.matrix_key import MatrixDigest, matrix_digest
from pipeline.damage.profiles import TargetProfiles, WeaponProfiles, prepare_targets, prepare_weapons
from pipeline.damage.reference_columns import ReferenceColumns
from pipeline.damage.report import DamageReport
from pipeline.damage.scenarios import SCENARIOS, Scenario, resolve_scenarios
from pipeline.damage.unit_results import UNIT_OUTPUTS, UnitKeyCounts, unit_grid
from pipeline.runtime import Beside

__all__ = [
    "MATRIX_COLUMNS",
    "DamageComputation",
    "DamageResult",
    "compute_damage_matrix",
    "prepare_damage",
    "write_damage_matrix",
    "write_damage_parquet",
]

MATRIX_COLUMNS: tuple[str, ...] = (
    "weapon_id", "profile_id", "scenario", *OUTPUTS, "damage_per_100_points", *UNIT_OUTPUTS,
)  # fmt: skip


@dataclass(frozen=True)
class DamageResult:
    """The published matrix (all requested scenarios) and the engine's report."""

    matrix: pl.DataFrame
    report: DamageReport


def prepare_damage(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
    loadouts: pl.DataFrame | None = None,
    cache: PartCache | None = None,
    references: Sequence[str] = (),
    unit_cache: PartCache | None = None,
    reference_cache: PartCache | None = None,
) -> DamageComputation:
    """Dedupe the inputs and run the engine on the distinct profiles (the expansion is per scenario). With a
    `cache` that holds matrix files, the engine computes the rows of the files it lacks, and every row against
    the `references` (profile ids: `damage_vs_reference`); what else a read needs is computed then
    (`BlockFill`). `unit_cache`: where the unit-level grid is kept and read back (`unit_results.unit_grid`);
    `reference_cache`: where each row's results at the references' columns are (`reference_columns.py`)."""
    resolved = resolve_scenarios(scenarios)
    w = prepare_weapons(weapons, weapon_abilities)
    t = prepare_targets(targets, w.abilities.anti_keywords)
    effective = effective_weapons(w.profiles, resolved, w.abilities.anti_keywords)
    keys = damage_keys([g.profiles for g in effective.groups], t.profiles)
    weapon_ids = cost_per_copy(w.ids, points, loadouts).sort("wkey", "weapon_id")
    referenced = t.ids.filter(pl.col("profile_id").is_in(list(references)))["tkey"].to_numpy()
    columns = np.unique(referenced).astype(np.int64)
    planned = cache if cache is not None and cache.holds_any() else None  # None: every row is written
    if planned is None:  # the engine starts at once; both threads hold the GIL little
        every = np.ones(effective.count, dtype=bool)
        blocks = Beside(lambda: _part_of_blocks(effective, t, keys, every, columns, reference_cache), "damage-blocks")
    effective_keys = effective_key_arrays(weapon_ids, effective, resolved)
    digest = matrix_digest(weapons, weapon_abilities, weapon_ids, targets, t.ids)
    fill = None
    if planned is not None:
        needed = rows_to_write(weapon_ids, effective_keys, digest, effective.count, planned)
        fill = BlockFill(effective, t, keys, needed)
        blocks = Beside(lambda: _part_of_blocks(effective, t, keys, needed, columns, reference_cache), "damage-blocks")
    unit, unit_counts = unit_grid(effective, t, keys, w.abilities.anti_keywords, unit_cache)
    report = _report(w, t, effective, weapon_ids, resolved, unit_counts)
    computed, reference = blocks.result()
    return DamageComputation(
        weapon_ids, t.ids, computed, unit, effective_keys, resolved, report, digest, fill, reference
    )


def rows_to_write(
    weapons: pl.DataFrame, effective_keys: dict[str, IntArray], digest: MatrixDigest, count: int, cache: PartCache
) -> BoolArray:
    """The effective rows read by the matrix files whose keys `cache` has no entry for (their files are checked
    when placed: one that fails is computed then)."""
    needed = np.zeros(count, dtype=bool)
    ranges = file_ranges(weapons["weapon_id"].to_list())
    held = cache.entry_keys()
    for scenario, rows in effective_keys.items():
        for first, last in ranges:
            if digest.file_key(scenario, first, last) not in held:
                needed[rows[first:last]] = True
    return needed


def _part_of_blocks(
    effective: EffectiveWeapons,
    targets: TargetProfiles,
    keys: DamageKeys,
    rows: BoolArray,
    columns: IntArray,
    cache: PartCache | None = None,
) -> tuple[dict[str, FloatArray], ReferenceBlocks]:
    """The blocks with the `rows` whole (the rest left unset), and every row at the `columns` apart: read from
    `cache` when it holds them (`reference_columns.py`), and kept there unless it held every row."""
    blocks = build_blocks(effective, targets, keys, rows=rows)
    picked = np.flatnonzero(rows)
    values = {name: np.empty((effective.count, len(columns))) for name in OUTPUTS}
    for name in OUTPUTS:
        values[name][picked] = blocks[name][np.ix_(picked, columns)]
    kept = ReferenceColumns.of(cache, effective, targets, columns) if cache is not None else None
    filled = kept.fill(values, ~rows) if kept is not None and not rows.all() else np.zeros_like(rows)
    at = np.arange(len(columns))
    build_blocks(effective, targets, keys, rows=~rows & ~filled, columns=columns, into=values, at=at)
    if kept is not None and not kept.holds_all():
        kept.keep(values)
    return blocks, ReferenceBlocks(columns, values)


def _report(
    w: WeaponProfiles,
    t: TargetProfiles,
    effective: EffectiveWeapons,
    weapon_ids: pl.DataFrame,
    scenarios: list[Scenario],
    unit: UnitKeyCounts,
) -> DamageReport:
    pairs = [g.profiles.height * (t.profiles if g.name == "special" else t.base).height for g in effective.groups]
    return DamageReport(
        scenarios=[s.name for s in scenarios],
        weapons=w.ids.height,
        weapon_profiles=w.profiles.height,
        targets=t.ids.height,
        defensive_profiles=t.profiles.height,
        skipped_targets=t.skipped,
        duplicate_target_ids=t.duplicates,
        cells_per_scenario=w.ids.height * t.ids.height,
        distinct_cells_per_scenario=w.profiles.height * t.profiles.height,
        effective_weapon_profiles=effective.count,
        computed_cells=sum(pairs),
        no_effect_abilities=w.abilities.no_effect,
        unknown_abilities=w.abilities.unknown,
        conditional_abilities=w.abilities.conditional,
        abilities_from_lists=w.abilities_from_lists,
        skill_null_as_torrent=w.skill_null_as_torrent,
        weapons_without_points=int(weapon_ids["cost_per_copy"].is_null().sum()),
        anti_keywords=w.abilities.anti_keywords,
        unit_weapon_parts=unit.weapon_parts,
        unit_target_parts=unit.target_parts,
        unit_count_keys=unit.count_keys,
        unit_loss_keys=unit.loss_keys,
        unit_distinct_pairs=unit.distinct_pairs,
    )


def compute_damage_matrix(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
    loadouts: pl.DataFrame | None = None,
) -> DamageResult:
    """The whole matrix in memory (fine for seeds; use `write_damage_matrix` for the full corpus)."""
    computation = prepare_damage(weapons, weapon_abilities, targets, points, scenarios, loadouts)
    matrix = pl.concat(list(computation.matrices())) if computation.scenarios else _empty_matrix()
    return DamageResult(matrix=matrix, report=computation.report)


def _empty_matrix() -> pl.DataFrame:
    schema = {c: (pl.String if c in {"weapon_id", "profile_id", "scenario"} else pl.Float64) for c in MATRIX_COLUMNS}
    return pl.DataFrame(schema=schema)


def write_damage_parquet(matrix: pl.DataFrame, out_dir: Path) -> list[Path]:
    """Hive-partitioned Parquet of an in-memory matrix, the files `write_parquet` writes, rows in matrix order."""
    paths = []
    for scenario in matrix["scenario"].unique(maintain_order=True).to_list():
        paths += write_partition(matrix.filter(pl.col("scenario") == scenario), out_dir, scenario)
    return paths


def write_damage_matrix(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    out_dir: Path,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
    loadouts: pl.DataFrame | None = None,
) -> DamageReport:
    """Compute and write every scenario, streamed: a row group per writer in memory at once."""
    computation = prepare_damage(weapons, weapon_abilities, targets, points, scenarios, loadouts)
    computation.write_parquet(out_dir)
    return computation.report
