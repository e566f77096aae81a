"""What the matrix's files are computed from: a run whose engine inputs for a file are those of a cached file
places that file instead of writing it again (docs/damage.md#files).

A file holds some weapons' rows (`matrix_files.file_ranges`) against every target, so its key is the digest of
every target's inputs and of each of its weapons' inputs, one digest per weapon row.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline.cache.fingerprint import code_fingerprint, frame_digest, key_of, row_digests
from pipeline.damage.inputs import TARGET_SCHEMA, WEAPON_ABILITY_SCHEMA, WEAPON_SCHEMA


@dataclass(frozen=True)
class MatrixDigest:
    """Digests of the engine's inputs: every target's (in `target_ids` order), and each weapon row's (its
    `weapons` columns, `weapon_abilities` rows and cost per copy, in publication order)."""

    targets: str
    weapon_rows: tuple[str, ...]

    def file_key(self, scenario: str, start: int, stop: int) -> str:
        """The cache key of the file holding weapon rows `[start, stop)` of a scenario: the code, the scenario,
        the targets and those rows (not where they sit: a file's bytes are those of its rows alone)."""
        return key_of(code_fingerprint(), "damage_matrix", scenario, self.targets, *self.weapon_rows[start:stop])


def matrix_digest(
    weapons: pl.DataFrame,
    abilities: pl.DataFrame,
    weapon_ids: pl.DataFrame,
    targets: pl.DataFrame,
    target_ids: pl.DataFrame,
) -> MatrixDigest:
    """The digests of every engine input in publication order (`weapon_ids` and `target_ids` order)."""
    return MatrixDigest(
        frame_digest(target_inputs(targets, target_ids)), row_digests(weapon_inputs(weapons, abilities, weapon_ids))
    )


def weapon_inputs(weapons: pl.DataFrame, abilities: pl.DataFrame, ordered: pl.DataFrame) -> pl.DataFrame:
    """For each row of `ordered` (weapon_id, cost_per_copy): the weapon's engine columns and ability rows."""
    columns = [c for c in WEAPON_SCHEMA if c in weapons.columns and c != "weapon_id"]
    own = weapons.unique(subset="weapon_id", keep="first", maintain_order=True).select("weapon_id", *columns)
    listed = [c for c in WEAPON_ABILITY_SCHEMA if c in abilities.columns and c != "weapon_id"]
    rows = abilities.group_by("weapon_id", maintain_order=True).agg(pl.struct(listed).alias("ability_rows"))
    return (
        ordered.select("weapon_id", "cost_per_copy")
        .join(own, on="weapon_id", how="left", maintain_order="left")
        .join(rows, on="weapon_id", how="left", maintain_order="left")
    )


def target_inputs(targets: pl.DataFrame, ordered: pl.DataFrame) -> pl.DataFrame:
    """For each row of `ordered` (profile_id): the target's row as the engine read it."""
    columns = [c for c in (*TARGET_SCHEMA, "stealth") if c in targets.columns and c != "profile_id"]
    own = targets.unique(subset="profile_id", keep="first", maintain_order=True).select("profile_id", *columns)
    return ordered.select("profile_id").join(own, on="profile_id", how="left", maintain_order="left")
