"""The damage stage as `pipeline/run.py` calls it: published frames in, a prepared computation out.

The engine runs on the distinct profiles here; the (large) per-cell matrix is
expanded scenario by scenario only when the store stage writes it (Parquet).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import polars as pl

from pipeline.cache.parts import PartCache
from pipeline.damage.inputs import TARGET_SCHEMA
from pipeline.damage.matrix import DamageComputation, prepare_damage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.runtime import Beside


def stealthy_datasheets(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """Datasheets with the Stealth ability (a datasheet ability: every model of the unit has it)."""
    abilities = frames.get("abilities", pl.DataFrame(schema={"datasheet_id": pl.String, "name": pl.String}))
    stealthy = abilities.filter(pl.col("name").str.to_lowercase().str.strip_chars() == "stealth")
    return stealthy.select("datasheet_id").unique().with_columns(pl.lit(True).alias("stealth"))


def targets_of(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """Every model profile plus the reference profiles, in the engine's target columns.

    `stealth` (−1 to ranged hit rolls against it) comes from the datasheet's abilities.
    """
    models = frames["model_profiles"].join(stealthy_datasheets(frames), on="datasheet_id", how="left")
    parts = [
        models.select(*_target_columns(models), pl.col("stealth").fill_null(False)),
        frames["reference_profiles"].select(
            *_target_columns(frames["reference_profiles"]), pl.lit(False).alias("stealth")
        ),
    ]
    return pl.concat(parts, how="vertical_relaxed")


def _target_columns(frame: pl.DataFrame) -> list[pl.Expr]:
    """The engine's target columns; one a table does not publish (`invuln_melee` of references) is NULL."""
    return [pl.col(c) if c in frame.columns else pl.lit(None, dtype=t).alias(c) for c, t in TARGET_SCHEMA.items()]


class DamageCaches(NamedTuple):
    """Where the damage stage keeps and finds its work: the matrix files' (the engine then skips the rows of the
    files it holds but those `damage_vs_reference` reads), the unit-level grid's, and each row's results at the
    reference profiles (`reference_columns.py`)."""

    matrix: PartCache | None = None
    unit_grid: PartCache | None = None
    reference: PartCache | None = None


NO_CACHES = DamageCaches()


def damage_stage(frames: Mapping[str, pl.DataFrame], caches: DamageCaches = NO_CACHES) -> DamageComputation:
    """Damage of every weapon against every target with a statline, on distinct profiles (`caches`: what the
    stage finds computed)."""
    references = frames["reference_profiles"]["profile_id"].to_list() if "reference_profiles" in frames else []
    return prepare_damage(
        frames["weapons"],
        frames["weapon_abilities"],
        targets_of(frames),
        frames["points"],
        loadouts=frames.get("datasheet_loadouts"),
        cache=caches.matrix,
        references=references,
        unit_cache=caches.unit_grid,
        reference_cache=caches.reference,
    )


class DamageOutputs(NamedTuple):
    """The damage stage's outputs: the computation (the matrix is written by the store) and the published slice.
    A tuple, so the run unpacks it and holds no reference that would keep the blocks past `written()`."""

    computation: DamageComputation
    vs_reference: pl.DataFrame


def damage_outputs(frames: Mapping[str, pl.DataFrame], caches: DamageCaches = NO_CACHES) -> DamageOutputs:
    """The computation and `damage_vs_reference` (the slice against the reference profiles)."""
    computation = damage_stage(frames, caches)
    return DamageOutputs(computation, damage_vs_reference(computation, frames))


def start_damage(frames: Mapping[str, pl.DataFrame], caches: DamageCaches = NO_CACHES) -> Beside[DamageOutputs]:
    """`damage_outputs` on a background thread: the engine is Polars and NumPy, so the run's Python stages
    (id aliases, findings) go on beside it (docs/scaling.md#the-first-stretch)."""
    given = dict(frames)  # the caller's later dicts never reach the thread
    return Beside(lambda: damage_outputs(given, caches), "damage-stage")
