"""The three seed pages through the stages up to the store, as publishing and the quality gates get them, and
a one-table edit of them (shared by the tests of what an unchanged table lets a run reuse)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline import config
from pipeline.damage.matrix import DamageComputation
from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.reconcile.stage import reconcile_stage
from pipeline.reports import StageReport
from pipeline.sources.registry import read_inputs
from pipeline.store import build_frames

Frames = dict[str, pl.DataFrame]


@dataclass(frozen=True)
class SeedStages:
    frames: Frames  # every table the store gets, `damage_vs_reference` included
    damage: DamageComputation
    reports: tuple[StageReport, StageReport]  # dedupe, reconcile


def seed_stages() -> SeedStages:
    deduped = dedupe_stage(read_inputs([config.RAW_PAGES_DIR]).dataset)
    reconciled = reconcile_stage(deduped.dataset)
    frames = build_frames(reference_stage(reconciled.dataset).dataset)
    damage = damage_stage(frames)
    frames = {**frames, "damage_vs_reference": damage_vs_reference(damage, frames)}
    return SeedStages(frames, damage, (deduped.report, reconciled.report))


def renamed_weapon(frames: Frames) -> Frames:
    """The first weapon's name changed: `weapons`, and no other table, differs."""
    weapons = frames["weapons"]
    first = weapons["weapon_id"][0]
    named = pl.when(pl.col("weapon_id") == first).then(pl.lit("Renamed gun")).otherwise(pl.col("name"))
    return {**frames, "weapons": weapons.with_columns(named.alias("name"))}
