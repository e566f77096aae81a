"""Compute on distinct profiles, publish on all: the `damage_matrix` table.

`prepare_damage` dedupes the inputs and evaluates the engine once per distinct
(weapon profile, defensive profile, scenario); `DamageComputation.matrix` then
expands one scenario to every (weapon_id, profile_id) by integer gathers, rows in
(weapon_id, profile_id) order. The full Wahapedia matrix is ~11.6 M rows per
scenario, so `write_damage_matrix` expands and writes one scenario at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.damage.engine import OUTPUTS, distinct_results
from pipeline.damage.inputs import per_model_cost
from pipeline.damage.profiles import prepare_targets, prepare_weapons
from pipeline.damage.report import DamageReport
from pipeline.damage.scenarios import SCENARIOS, Scenario, resolve_scenarios

MATRIX_COLUMNS: tuple[str, ...] = ("weapon_id", "profile_id", "scenario", *OUTPUTS, "damage_per_100_points")
PARQUET_DIR = "damage_matrix"
PARQUET_FILE = "part-0.parquet"


@dataclass(frozen=True)
class DamageResult:
    """The published matrix (all requested scenarios) and the engine's report."""

    matrix: pl.DataFrame
    report: DamageReport


class DamageComputation:
    """Distinct results plus the id -> key maps needed to expand them."""

    def __init__(self, weapons: pl.DataFrame, targets: pl.DataFrame, results: pl.DataFrame,
                 scenarios: list[Scenario], report: DamageReport) -> None:  # fmt: skip
        self.weapons = weapons  # weapon_id, wkey, cost_per_model (sorted by wkey, weapon_id)
        self.targets = targets  # profile_id, tkey (sorted by tkey, profile_id)
        self.results = results  # scenario_idx, wkey, tkey, OUTPUTS
        self.scenarios = scenarios
        self.report = report
        self._n_tkeys = report.defensive_profiles
        #: Enum types of weapon_id, profile_id, scenario: 4-byte codes in memory, strings to every reader,
        #: and the cheapest id encoding for the Parquet writer.
        self.id_types = (
            pl.Enum(weapons["weapon_id"]),
            pl.Enum(targets["profile_id"]),
            pl.Enum([s.name for s in scenarios]),
        )

    def _dense(self, scenario_idx: int) -> dict[str, pl.Series]:
        """Outputs of one scenario at position wkey * n_tkeys + tkey (scattered: order-proof)."""
        part = self.results.filter(pl.col("scenario_idx") == scenario_idx)
        position = (part["wkey"].cast(pl.Int64) * self._n_tkeys + part["tkey"].cast(pl.Int64)).to_numpy()
        in_order = bool(np.array_equal(position, np.arange(part.height)))
        columns = {}
        for name in OUTPUTS:
            values = part[name].to_numpy()
            if not in_order:
                values, dense = np.empty(part.height, dtype=np.float64), values
                values[position] = dense
            columns[name] = pl.Series(name, values, dtype=pl.Float64)
        return columns

    def lazy_matrix(self, scenario: str) -> pl.LazyFrame:
        """The plan of one scenario's rows, ordered (wkey, weapon_id) then (tkey, profile_id)."""
        dense = self._dense([s.name for s in self.scenarios].index(scenario))
        index = pl.col("wkey").cast(pl.Int64) * self._n_tkeys + pl.col("tkey").cast(pl.Int64)
        damage = pl.lit(dense["damage"]).gather(pl.col("index"))
        return (
            self.weapons.lazy().select(pl.col("weapon_id").cast(self.id_types[0]), "wkey", "cost_per_model")
            .join(self.targets.lazy().select(pl.col("profile_id").cast(self.id_types[1]), "tkey"), how="cross")
            .with_columns(index.alias("index"))
            .select(
                "weapon_id",
                "profile_id",
                pl.lit(scenario, dtype=self.id_types[2]).alias("scenario"),
                *[pl.lit(dense[name]).gather(pl.col("index")).alias(name) for name in OUTPUTS],
                (damage * 100.0 / pl.col("cost_per_model")).alias("damage_per_100_points"),
            )
        )  # fmt: skip

    def matrix(self, scenario: str) -> pl.DataFrame:
        """Every (weapon_id, profile_id) of one scenario, in memory."""
        return self.lazy_matrix(scenario).collect()

    def matrices(self) -> Iterator[pl.DataFrame]:
        for scenario in self.scenarios:
            yield self.matrix(scenario.name)


def prepare_damage(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
) -> DamageComputation:
    """Dedupe the inputs and run the engine on the distinct profiles (cheap; expansion is lazy)."""
    resolved = resolve_scenarios(scenarios)
    w = prepare_weapons(weapons, weapon_abilities)
    t = prepare_targets(targets, w.abilities.anti_keywords)
    results = distinct_results(w, t, resolved)
    weapon_ids = w.ids.join(per_model_cost(points), on="datasheet_id", how="left").sort("wkey", "weapon_id")
    report = DamageReport(
        scenarios=[s.name for s in resolved],
        weapons=w.ids.height,
        weapon_profiles=w.profiles.height,
        targets=t.ids.height,
        defensive_profiles=t.profiles.height,
        skipped_targets=t.skipped,
        duplicate_target_ids=t.duplicates,
        cells_per_scenario=w.ids.height * t.ids.height,
        distinct_cells_per_scenario=w.profiles.height * t.profiles.height,
        no_effect_abilities=w.abilities.no_effect,
        unknown_abilities=w.abilities.unknown,
        conditional_abilities=w.abilities.conditional,
        abilities_from_lists=w.abilities_from_lists,
        skill_null_as_torrent=w.skill_null_as_torrent,
        weapons_without_points=int(weapon_ids["cost_per_model"].is_null().sum()),
        anti_keywords=w.abilities.anti_keywords,
    )
    return DamageComputation(weapon_ids, t.ids, results, resolved, report)


def compute_damage_matrix(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
) -> DamageResult:
    """The whole matrix in memory (fine for seeds; use `write_damage_matrix` for the full corpus)."""
    computation = prepare_damage(weapons, weapon_abilities, targets, points, scenarios)
    matrix = pl.concat(list(computation.matrices())) if computation.scenarios else _empty_matrix()
    return DamageResult(matrix=matrix, report=computation.report)


def _empty_matrix() -> pl.DataFrame:
    schema = {
        c: (pl.String if c in {"weapon_id", "profile_id", "scenario"} else pl.Float64) for c in MATRIX_COLUMNS
    }
    return pl.DataFrame(schema=schema)


def partition_path(out_dir: Path, scenario: str) -> Path:
    """`<out_dir>/damage_matrix/scenario=<name>/part-0.parquet` (hive layout)."""
    return Path(out_dir) / PARQUET_DIR / f"scenario={scenario}" / PARQUET_FILE


def _write_partition(frame: pl.DataFrame | pl.LazyFrame, out_dir: Path, scenario: str) -> Path:
    """One scenario's rows without the `scenario` column (the hive path carries it).

    A LazyFrame is streamed to the file (rows in plan order), so the full scenario
    never sits in memory; zstd, statistics on, one file per scenario.
    """
    path = partition_path(out_dir, scenario)
    path.parent.mkdir(parents=True, exist_ok=True)
    lazy = frame.lazy().drop("scenario")
    lazy.sink_parquet(path, compression="zstd", statistics=True, maintain_order=True)
    return path


def write_damage_parquet(matrix: pl.DataFrame, out_dir: Path) -> list[Path]:
    """Hive-partitioned Parquet of an in-memory matrix, one file per scenario, rows in matrix order."""
    paths = []
    for scenario in matrix["scenario"].unique(maintain_order=True).to_list():
        paths.append(_write_partition(matrix.filter(pl.col("scenario") == scenario), out_dir, scenario))
    return paths


def write_damage_matrix(
    weapons: pl.DataFrame,
    weapon_abilities: pl.DataFrame,
    targets: pl.DataFrame,
    points: pl.DataFrame,
    out_dir: Path,
    scenarios: Sequence[str | Scenario] = SCENARIOS,
) -> DamageReport:
    """Compute and write every scenario, holding one scenario's rows in memory at a time."""
    computation = prepare_damage(weapons, weapon_abilities, targets, points, scenarios)
    for scenario in computation.scenarios:
        _write_partition(computation.lazy_matrix(scenario.name), out_dir, scenario.name)
    return computation.report
