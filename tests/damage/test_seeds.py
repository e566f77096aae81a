"""The engine on the three seed pages (parsed by pipeline.sources.page) plus the reference profiles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.damage import (
    compute_damage_matrix,
    points_frame,
    reference_targets_frame,
    targets_frame,
    weapons_frame,
)
from pipeline.damage.inputs import WEAPON_ABILITY_SCHEMA
from pipeline.sources import page as page_export


@pytest.fixture(scope="module")
def seeds(pages_dir: Path) -> Any:
    records: dict[str, list[Any]] = {}
    for page in sorted(pages_dir.glob("*.txt")):
        for record in page_export.parse(page):
            records.setdefault(record.TABLE, []).append(record)
    abilities = pl.DataFrame(
        [{k: r.row().get(k) for k in WEAPON_ABILITY_SCHEMA} for r in records.get("weapon_abilities", [])],
        schema=WEAPON_ABILITY_SCHEMA,
    )
    targets = pl.concat([targets_frame(records.get("model_profiles", [])), reference_targets_frame()])
    return compute_damage_matrix(
        weapons_frame(records["weapons"]), abilities, targets, points_frame(records.get("points", []))
    )


def test_psyko_gatler_against_meq_in_the_default_scenario(seeds: Any) -> None:
    # seed 000 line 6: | Psyko-gatler assault sustained hits 1 | 24" | 12 | 4+ | 6 | -2 | 2 |
    # hits 12 × 3/6 + 12/6 = 8; S6 vs T4 3+: 8 × 4/6; Sv3+ AP-2 fails 4/6; D2: 8 × 4/6 × 4/6 × 2 = 7.1111
    # points line 26: | 1 model | 175 | -> 7.1111 per 175 points = 4.0635 per 100 points
    row = seeds.matrix.filter(
        pl.col("weapon_id").cast(pl.String).str.ends_with("psyko-gatler"),
        pl.col("profile_id").cast(pl.String) == "ref:meq",
        pl.col("scenario").cast(pl.String) == "default",
    ).row(0, named=True)
    assert row["damage"] == pytest.approx(8 * 4 / 6 * 4 / 6 * 2)
    assert row["damage"] == pytest.approx(7.1111, abs=1e-4)
    assert row["damage_per_100_points"] == pytest.approx(8 * 4 / 6 * 4 / 6 * 2 * 100 / 175)


def test_every_seed_weapon_meets_every_reference_profile_in_every_scenario(seeds: Any) -> None:
    refs = seeds.matrix.filter(pl.col("profile_id").cast(pl.String).str.starts_with("ref:"))
    assert refs.height == seeds.report.weapons * 8 * 5
    assert seeds.report.weapons >= 5  # Wazdakka alone has 5 weapon profiles


def test_model_profiles_without_a_statline_are_skipped_and_listed(seeds: Any) -> None:
    # the Wazdakka page lost its statline row: its model profile has no T/Sv/W
    assert any("wazdakka" in p for p in seeds.report.skipped_targets)
