"""The store stage: the damage matrix is written and held by DuckDB (table or view) before any gate runs."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from pipeline import config
from pipeline.damage.matrix import DamageComputation
from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage
from pipeline.dataset import Dataset
from pipeline.ids import file_sha256
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.reconcile.stage import reconcile_stage
from pipeline.store import build_frames, open_store, store_stage
from pipeline.store.load import DAMAGE_TABLE_MAX_ROWS, attach_damage_matrix, load_duckdb
from schemas import Datasheet, ModelProfile, Points, Weapon

SCENARIOS = ["charged", "cover", "default", "half_range", "stationary"]


def _dataset() -> Dataset:
    typed = parse_ability_list("sustained hits 1")
    records = [
        Datasheet(datasheet_id="d1", source_id="t:1", faction="Orks", name="Boyz", line=1),
        ModelProfile(profile_id="p1", datasheet_id="d1", name="Boy", toughness=5, save=5, wounds=1, unit_size=10),
        Points(datasheet_id="d1", models=10, cost=80, source_id="t:1", line=2),
        *[
            Weapon(
                weapon_id=f"w{n}",
                datasheet_id="d1",
                name=f"Shoota {n}",
                kind="ranged",
                range_inches=18,
                attacks=str(n),
                skill=5,
                strength=4,
                ap=0,
                damage="1",
                abilities=[a.normalised for a in typed],
                typed_abilities=typed,
            )
            for n in (2, 3)
        ],
    ]
    return reference_stage(reconcile_stage(Dataset(records)).dataset).dataset


def _frames() -> tuple[dict[str, pl.DataFrame], DamageComputation]:
    """The integrity stage's frames with the reference slice, as `run.py` hands them to the store."""
    frames = build_frames(_dataset())
    damage = damage_stage(frames)
    return {**frames, "damage_vs_reference": damage_vs_reference(damage, frames)}, damage


def test_store_stage_holds_the_matrix_as_a_table_with_its_views(tmp_path: Path) -> None:
    frames, damage = _frames()
    before = {name: frame.clone() for name, frame in frames.items()}
    blocks = {name: block.copy() for name, block in damage.blocks.items()}
    report = store_stage(frames, damage, tmp_path)
    cells = 2 * (1 + 8) * 5  # 2 weapons x (1 model + 8 reference profiles) x 5 scenarios
    assert (report.damage_matrix_in_duckdb, report.damage_cells) == ("table", cells)
    assert report.as_dict() == {"damage_matrix_in_duckdb": "table"}
    parts = sorted(p.parent.name for p in (tmp_path / "damage_matrix").glob("*/part-00000.parquet"))
    assert parts == [f"scenario={s}" for s in SCENARIOS]
    # each table's Parquet too, with the hash publishing and the quality gates key their reuse by
    assert sorted(report.table_files) == sorted(name for name in frames if name != "damage_matrix")
    for name, sha in report.table_files.items():
        assert file_sha256(str(tmp_path / f"{name}.parquet")) == sha
        assert pl.read_parquet(tmp_path / f"{name}.parquet").equals(frames[name])
    with open_store(tmp_path / config.DUCKDB_FILENAME) as con:
        assert con.execute("SELECT count(*) FROM damage_matrix").fetchone() == (cells,)
        # Sustained Hits 1, BS 5+: 3 attacks x (2/6 + 1/6 x 1) = 1.5 hits
        hits = con.execute("SELECT hits FROM damage_matrix WHERE weapon_id = 'w3' AND scenario = 'default'").fetchall()
        assert {round(h, 9) for (h,) in hits} == {1.5}
        assert con.execute("SELECT count(*) FROM v_weapon_vs_reference").fetchone() == (2 * 8 * 5,)
    assert all(frames[name].equals(before[name]) for name in before)  # inputs as they were
    assert all(np.array_equal(damage.blocks[name], blocks[name]) for name in blocks)


def test_a_large_matrix_is_a_view_that_resolves_beside_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames, damage = _frames()
    release = tmp_path / "release"
    release.mkdir()
    damage.write_parquet(release)
    load_duckdb(frames, release / config.DUCKDB_FILENAME)
    assert attach_damage_matrix(release / config.DUCKDB_FILENAME, DAMAGE_TABLE_MAX_ROWS + 1) == "view"
    monkeypatch.chdir(tmp_path)  # not the release folder: the view must still find its Parquet
    with open_store(release / config.DUCKDB_FILENAME) as con:
        assert con.execute("SELECT count(*) FROM damage_matrix").fetchone() == (damage.cells,)
        kinds = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'damage_matrix'")
        assert kinds.fetchall() == [("VIEW",)]
    bare = duckdb.connect(str(release / config.DUCKDB_FILENAME), read_only=True)
    try:
        with pytest.raises(duckdb.Error):
            bare.execute("SELECT count(*) FROM damage_matrix")  # without the search path it does not
    finally:
        bare.close()


def test_the_reference_slice_is_in_matrix_order_every_time() -> None:
    """Scenario, then weapon, then reference profile, then unit: the same rows in the same order (and so the
    same Parquet bytes) on every run, whatever order a multi-threaded join would give."""
    frames, damage = _frames()
    table = frames["damage_vs_reference"]
    scenarios = [s.name for s in damage.scenarios]
    assert table["scenario"].unique(maintain_order=True).to_list() == scenarios
    expected = damage.matrix("default", profile_ids=frames["reference_profiles"]["profile_id"].to_list())
    default = table.filter(pl.col("scenario") == "default")
    assert default["weapon_id"].to_list() == expected["weapon_id"].cast(pl.String).to_list()
    assert default["profile_id"].to_list() == expected["profile_id"].cast(pl.String).to_list()
    assert all(damage_vs_reference(damage, frames).equals(table) for _ in range(3))
