"""`damage_vs_reference`: every weapon of every unit against the reference profiles, all scenarios.

The slice is gathered from the engine's distinct results (`DamageComputation.matrix` with the
reference profile ids), never read back from the full matrix, and each cell is given the unit it
belongs to: the unit of the weapon's datasheet, and any copy's unit that inherits the weapon.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipeline.damage.matrix import DamageComputation
from pipeline.frame_types import table_schema
from schemas.golden import DamageVsReference


def unit_weapon_pairs(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """(unit_id, weapon_id, datasheet_id, source_id, golden) for every weapon of every unit."""
    weapons = frames["weapons"].select("weapon_id", "datasheet_id", "source_id")
    own = weapons.join(frames["datasheets"].select("datasheet_id", "unit_id"), on="datasheet_id", how="inner")
    golden = frames["unit_weapons"].select("unit_id", "weapon_id").with_columns(pl.lit(True).alias("golden"))
    inherited = golden.join(own.select("unit_id", "weapon_id"), on=["unit_id", "weapon_id"], how="anti").join(
        weapons, on="weapon_id", how="inner"
    )
    pairs = pl.concat([own.select("unit_id", "weapon_id", "datasheet_id", "source_id"),
                       inherited.select("unit_id", "weapon_id", "datasheet_id", "source_id")])  # fmt: skip
    pairs = pairs.filter(pl.col("unit_id").is_not_null()).unique(["unit_id", "weapon_id"])
    marked = pairs.join(golden, on=["unit_id", "weapon_id"], how="left")
    return marked.with_columns(pl.col("golden").fill_null(False))


def damage_vs_reference(computation: DamageComputation, frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """The published table: matrix columns plus unit_id, datasheet_id, golden, source_id; ids as strings."""
    schema = table_schema(DamageVsReference)
    references = frames["reference_profiles"]["profile_id"].to_list()
    slices = [computation.matrix(s.name, profile_ids=references) for s in computation.scenarios]
    if not slices or not references:
        return pl.DataFrame(schema=schema)
    cells = pl.concat(slices).with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String))
    pairs = unit_weapon_pairs(frames).sort("weapon_id", "unit_id")
    joined = cells.join(pairs, on="weapon_id", how="inner", maintain_order="left_right")  # same bytes every run
    return joined.with_columns(pl.lit(None, dtype=pl.Int64).alias("line")).select(
        [pl.col(c).cast(t) for c, t in schema.items()]
    )
