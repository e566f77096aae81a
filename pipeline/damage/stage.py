"""The damage stage as `pipeline/run.py` calls it: published frames in, a prepared computation out.

The engine runs on the distinct profiles here; the (large) per-cell matrix is
expanded scenario by scenario only when the release is written.
"""

from __future__ import annotations

import polars as pl

from pipeline.damage.inputs import TARGET_SCHEMA
from pipeline.damage.matrix import DamageComputation, prepare_damage


def targets_of(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Every model profile plus the reference profiles, in the engine's target columns."""
    columns = list(TARGET_SCHEMA)
    parts = [frames[t].select(columns) for t in ("model_profiles", "reference_profiles") if t in frames]
    return pl.concat(parts, how="vertical_relaxed") if parts else pl.DataFrame(schema=TARGET_SCHEMA)


def damage_stage(frames: dict[str, pl.DataFrame]) -> DamageComputation:
    """Damage of every weapon against every target with a statline, on distinct profiles."""
    return prepare_damage(frames["weapons"], frames["weapon_abilities"], targets_of(frames), frames["points"])
