"""Publishing the matrix: every cell, hive Parquet, deterministic bytes, and the engine's report."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

from pipeline.damage import (
    MATRIX_COLUMNS,
    SCENARIOS,
    compute_damage_matrix,
    expand,
    matrix_files,
    points_frame,
    prepare_damage,
    reference_targets_frame,
    scenario_files,
    targets_frame,
    weapon_abilities_frame,
    weapons_frame,
    write_damage_matrix,
    write_damage_parquet,
)
from pipeline.damage.buffers import Buffers
from pipeline.damage.inputs import WEAPON_ABILITY_SCHEMA
from schemas.records import Points
from tests.damage.builders import target, weapon

WEAPONS = [
    weapon(
        "gatler",
        attacks="12",
        skill=4,
        strength=6,
        ap=-2,
        damage="2",
        abilities=["assault", "sustained hits 1"],
    ),
    weapon("bolter", abilities=["rapid fire 1", "assault"]),
    weapon("bolter-copy", abilities=["rapid fire 1", "assault"]),  # same statline: one distinct profile
    weapon("plasma", damage="2", strength=8, ap=-3, abilities=["hazardous", "rapid fire 1"]),
    weapon("mortar", attacks="D6", abilities=["blast", "indirect fire", "bubblechukka"]),
    weapon("flamer", attacks="D6", skill=None, abilities=["ignores cover"]),  # no torrent tag, no skill
    weapon("choppa", kind="melee", attacks="4", ap=-1, abilities=["anti-vehicle 4+", "precision"]),
]
TARGETS = [
    target("boy", toughness=5, save=5, wounds=1, keywords=["INFANTRY", "ORKS"], unit_size=10),
    target("boy-2", toughness=5, save=5, wounds=1, keywords=["INFANTRY", "GRETCHIN"], unit_size=14),
    target("trukk", toughness=8, save=4, wounds=10, keywords=["VEHICLE"], unit_size=1, damage_reduction=1),
    target("broken", toughness=None, save=4, wounds=3),
]
POINTS = [Points(datasheet_id="ds", models=5, cost=90)]


def frames() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    targets = pl.concat([targets_frame(TARGETS), reference_targets_frame()])
    return weapons_frame(WEAPONS), weapon_abilities_frame(WEAPONS), targets, points_frame(POINTS)


@pytest.fixture(scope="module")
def result() -> object:
    return compute_damage_matrix(*frames())


def test_matrix_covers_every_weapon_target_and_scenario(result: object) -> None:
    matrix = result.matrix  # type: ignore[attr-defined]
    assert matrix.columns == list(MATRIX_COLUMNS)
    assert matrix.height == 7 * (3 + 8) * 5  # the target without toughness is skipped
    assert matrix.select("weapon_id", "profile_id", "scenario").n_unique() == matrix.height
    assert set(matrix["profile_id"].cast(pl.String)) >= {"ref:meq", "ref:knight", "boy", "trukk"}


def test_report_counts(result: object) -> None:
    report = result.report  # type: ignore[attr-defined]
    assert report.skipped_targets == ["broken"]
    assert report.weapons == 7
    assert report.weapon_profiles == 6  # bolter and bolter-copy share a statline
    # boy, boy-2 and ref:ork_boyz are one defensive profile: T5 Sv5+ W1 INFANTRY, blast bonus 2 (10 or 14
    # models); ORKS / GRETCHIN matter to no anti ability. 11 targets -> 9 distinct
    assert report.targets == 11
    assert report.defensive_profiles == 9
    assert report.anti_keywords == ["VEHICLE"]
    assert report.no_effect_abilities == {"assault": 2 + 1, "precision": 1}
    assert report.unknown_abilities == {"bubblechukka": 1}
    assert report.conditional_abilities == {"hazardous": 1, "indirect_fire": 1}
    assert report.skill_null_as_torrent == 1
    assert report.cells_per_scenario == 7 * 11
    assert report.abilities_from_lists == 0
    assert "bubblechukka" in report.summary()
    assert report.as_dict()["no_effect_reasons"]["precision"]


def test_skill_null_is_treated_as_torrent(result: object) -> None:
    matrix = result.matrix  # type: ignore[attr-defined]
    flamer = matrix.filter(pl.col("weapon_id") == "flamer", pl.col("scenario") == "default")
    assert (flamer["hits"] == 3.5).all()


def test_invalid_ability_values_are_reported_not_dropped() -> None:
    w, _, t, p = frames()
    bad = pl.DataFrame(
        [
            {"weapon_id": "gatler", "ability": "sustained_hits", "value": "lots", "keyword": None,
             "raw": "sustained hits lots"},
            {"weapon_id": "gatler", "ability": "anti", "value": "9+", "keyword": "INFANTRY",
             "raw": "anti-infantry 9+"},
        ],
        schema=WEAPON_ABILITY_SCHEMA,
    )  # fmt: skip
    report = prepare_damage(w, bad, t, p, ["default"]).report
    assert report.unknown_abilities == {
        "sustained_hits: sustained hits lots": 1,
        "anti: anti-infantry 9+": 1,
        "bubblechukka": 1,  # the mortar's, parsed from its abilities list (it has no rows in `bad`)
    }
    assert report.abilities_from_lists == 6  # every weapon but the gatler


def test_abilities_list_is_used_when_the_table_has_no_rows(result: object) -> None:
    w, a, t, p = frames()
    from_lists = compute_damage_matrix(w, a.clear(), t, p)
    assert from_lists.matrix.equals(result.matrix)  # type: ignore[attr-defined]
    assert from_lists.report.abilities_from_lists == 7
    assert from_lists.report.unknown_abilities == {"bubblechukka": 1}


def test_unknown_scenario_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown scenario"):
        prepare_damage(*frames(), scenarios=["night_fight"])


def test_rows_are_grouped_deterministically(result: object) -> None:
    again = compute_damage_matrix(*frames()).matrix
    assert again.equals(result.matrix)  # type: ignore[attr-defined]


def test_parquet_is_hive_partitioned_and_matches_the_table(tmp_path: Path, result: object) -> None:
    matrix = result.matrix  # type: ignore[attr-defined]
    paths = write_damage_parquet(matrix, tmp_path)
    assert paths == [path for s in SCENARIOS for path in scenario_files(tmp_path, s)]
    assert "scenario" not in pl.read_parquet(paths[0]).columns
    glob = str(tmp_path / "damage_matrix" / "*" / "*.parquet")
    relation = duckdb.sql("select * from read_parquet(?, hive_partitioning = true)", params=[glob])
    assert relation is not None
    read = relation.pl()
    assert read.height == matrix.height
    key = ["weapon_id", "profile_id", "scenario"]
    joined = matrix.with_columns(pl.col(key).cast(pl.String)).join(read, on=key, suffix="_pq")
    assert joined.height == matrix.height
    assert (joined["damage_capped"] == joined["damage_capped_pq"]).all()


def _bytes(root: Path, scenario: str) -> list[bytes]:
    return [path.read_bytes() for path in scenario_files(root, scenario)]


@pytest.mark.parametrize("per_file", [1, 3, 512])
def test_streamed_write_holds_the_in_memory_matrix_and_is_byte_stable(
    tmp_path: Path, result: object, per_file: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same files streamed and from the matrix in memory: one per weapon, a few, or one."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", per_file)
    report = write_damage_matrix(*frames(), tmp_path / "streamed")
    write_damage_parquet(result.matrix, tmp_path / "memory")  # type: ignore[attr-defined]
    write_damage_matrix(*frames(), tmp_path / "again")
    assert report.cells_per_scenario == 77
    for scenario in SCENARIOS:
        streamed = scenario_files(tmp_path / "streamed", scenario)
        assert len(streamed) == {1: 7, 3: 3, 512: 1}[per_file]  # 3: weapons 0-2, 3-5, 6
        assert _bytes(tmp_path / "streamed", scenario) == _bytes(tmp_path / "again", scenario)
        assert [pq.ParquetFile(p).metadata.num_rows for p in streamed] == [
            pq.ParquetFile(p).metadata.num_rows for p in scenario_files(tmp_path / "memory", scenario)
        ]
        assert pl.read_parquet(streamed).equals(pl.read_parquet(scenario_files(tmp_path / "memory", scenario)))


@pytest.mark.parametrize(
    ("group_rows", "workers", "per_file"),
    [(1, 1, 512), (5, 2, 512), (11, 3, 3), (12, 5, 3), (30, 1, 512), (30, 2, 3), (1000, 2, 1)],
)
def test_a_matrix_written_in_row_groups_is_the_whole_matrix(
    tmp_path: Path, result: object, group_rows: int, workers: int, per_file: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """77 cells a scenario in row groups that split weapons (5, 12 and 30 are no multiple of 11 targets),
    one cell, one weapon, all at once, in one file or several (each starts its own row groups): the rows of
    the in-memory matrix, in their order, and the same bytes whatever the number of writers."""
    monkeypatch.setattr(expand, "ROW_GROUP_ROWS", group_rows)
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", per_file)
    write_damage_parquet(result.matrix, tmp_path / "memory")  # type: ignore[attr-defined]
    prepare_damage(*frames()).write_parquet(tmp_path / "groups", workers=workers)
    prepare_damage(*frames()).write_parquet(tmp_path / "one", workers=1)
    for scenario in SCENARIOS:
        whole, grouped = scenario_files(tmp_path / "memory", scenario), scenario_files(tmp_path / "groups", scenario)
        assert pl.read_parquet(grouped).equals(pl.read_parquet(whole))
        files = [pq.ParquetFile(path).metadata for path in grouped]
        assert [f.num_row_groups for f in files] == [-(-f.num_rows // group_rows) for f in files]
        assert _bytes(tmp_path / "groups", scenario) == _bytes(tmp_path / "one", scenario)


@pytest.mark.parametrize("reused", [False, True])
@pytest.mark.parametrize("with_points", [True, False])
def test_a_row_group_is_its_slice_of_the_scenario_matrix(with_points: bool, reused: bool) -> None:
    """Built with NumPy and Arrow: the values, nulls (no points: no damage per 100 points) and order of the
    Polars matrix, ids as strings; the same when one set of buffers serves slices of 0, 7, 2, 1 and 6 weapons
    in turn (each table read before the next is built)."""
    w, a, t, p = frames()
    computation = prepare_damage(w, a, t, p if with_points else p.clear())
    whole = (
        computation.matrix("charged").drop("scenario").with_columns(pl.col("weapon_id", "profile_id").cast(pl.String))
    )
    assert whole["damage_per_100_points"].null_count() == (0 if with_points else 77)
    buffers: Buffers | None = {} if reused else None
    for start, stop in [(0, 0), (0, 77), (10, 23), (76, 77), (5, 60)]:
        table = pl.from_arrow(computation.row_group("charged", start, stop, buffers))
        assert isinstance(table, pl.DataFrame)
        assert table.with_columns(pl.col("weapon_id", "profile_id").cast(pl.String)).equals(
            whole.slice(start, stop - start)
        )


def test_every_column_but_the_profile_ids_carries_statistics(tmp_path: Path) -> None:
    """min/max per row group of `weapon_id` (rows are sorted by it) and the values; none for the profile ids."""
    prepare_damage(*frames()).write_parquet(tmp_path)
    group = pq.ParquetFile(scenario_files(tmp_path, "default")[0]).metadata.row_group(0)
    stats = {group.column(i).path_in_schema: group.column(i).statistics for i in range(group.num_columns)}
    assert stats["weapon_id"] is not None and stats["weapon_id"].has_min_max
    assert stats["damage"] is not None and stats["damage"].has_min_max
    assert stats["profile_id"] is None or not stats["profile_id"].has_min_max


def test_only_the_nullable_contract_column_is_optional_in_parquet(tmp_path: Path) -> None:
    """The columns `DamageCell` never leaves NULL are REQUIRED (no definition levels to write); readers still
    get strings for the ids and a NULL where a weapon has no points."""
    w, a, t, p = frames()
    prepare_damage(w, a, t, p.clear()).write_parquet(tmp_path)
    path = scenario_files(tmp_path, "default")[0]
    schema = pq.ParquetFile(path).schema
    optional = {schema.column(i).name for i in range(len(schema)) if schema.column(i).max_definition_level}
    assert optional == {"damage_per_100_points"}
    read = pl.read_parquet(path)
    assert read["weapon_id"].dtype == pl.String and read["damage_per_100_points"].null_count() == 77


def test_empty_inputs_give_an_empty_matrix() -> None:
    w, a, t, p = frames()
    empty = compute_damage_matrix(w.clear(), a.clear(), t, p)
    assert empty.matrix.height == 0
    assert empty.report.weapons == 0


def test_matrix_for_some_profiles_equals_the_filtered_matrix() -> None:
    computation = prepare_damage(*frames())
    refs = ["ref:meq", "ref:knight"]
    for scenario in ("default", "cover"):
        subset = computation.matrix(scenario, profile_ids=refs)
        full = computation.matrix(scenario).filter(pl.col("profile_id").cast(pl.String).is_in(refs))
        assert subset.height == 7 * 2
        assert subset.with_columns(pl.col("profile_id").cast(pl.String)).equals(
            full.with_columns(pl.col("profile_id").cast(pl.String))
        )


def test_sorting_by_id_sorts_the_strings(result: object) -> None:
    matrix = result.matrix  # type: ignore[attr-defined]
    ids = matrix.sort("weapon_id")["weapon_id"].cast(pl.String).to_list()
    assert ids == sorted(ids)


def test_targets_sharing_a_statline_share_one_result_column() -> None:
    """A copy of a target adds a row to every weapon's matrix, not a column to the result blocks."""
    w, a, t, p = frames()
    copy = targets_frame(
        [target("boy-copy", toughness=5, save=5, wounds=1, keywords=["INFANTRY", "ORKS"], unit_size=10)]
    )
    once, twice = prepare_damage(w, a, t, p), prepare_damage(w, a, pl.concat([t, copy]), p)
    assert twice.blocks["damage"].shape == once.blocks["damage"].shape
    assert twice.targets.height == once.targets.height + 1
    matrix = twice.matrix("default").drop("profile_id")
    boy = twice.matrix("default", ["boy"])
    assert twice.matrix("default", ["boy-copy"]).drop("profile_id").equals(boy.drop("profile_id"))
    assert matrix.height == once.matrix("default").height + w.height


@pytest.mark.parametrize("at_once", [1, 2, 3])
def test_blocks_do_not_depend_on_how_many_queries_run_at_once(monkeypatch: pytest.MonkeyPatch, at_once: int) -> None:
    """The engine's queries run a batch at a time (their results placed before the next batch): the blocks are
    the bytes of running them all at once, whatever the batch (a query per effective profile: several batches)."""
    monkeypatch.setattr(expand, "CHUNK", 1)
    w, a, t, p = frames()
    monkeypatch.setattr(expand, "plans_at_once", lambda: 1000)
    whole = prepare_damage(w, a, t, p).blocks
    monkeypatch.setattr(expand, "plans_at_once", lambda: at_once)
    batched = prepare_damage(w, a, t, p).blocks
    assert whole["damage"].shape[0] > 3 * at_once
    assert {k: v.tobytes() for k, v in batched.items()} == {k: v.tobytes() for k, v in whole.items()}


def test_a_second_write_into_the_folder_leaves_only_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Readers glob every part of a scenario: 7 files (one a weapon), then 1 written over them leave 1."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 1)
    prepare_damage(*frames()).write_parquet(tmp_path)
    assert len(scenario_files(tmp_path, "default")) == 7
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 512)
    prepare_damage(*frames()).write_parquet(tmp_path)
    assert [p.name for p in scenario_files(tmp_path, "default")] == ["part-00000.parquet"]
    assert pl.read_parquet(scenario_files(tmp_path, "default")).height == 77
