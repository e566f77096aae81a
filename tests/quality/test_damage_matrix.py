"""The damage matrix's gate: DuckDB summarises every cell per scenario (the matrix is never loaded into
pandas), GX checks the summary. A real matrix (the engine on the conftest records) passes; each break
made in its cells fails the gate with the scenario and the number of offending cells."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.damage.stage import damage_stage
from pipeline.dataset import Dataset
from pipeline.errors import QualityGateError
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.quality.batches import existing_tables, summary_query
from pipeline.quality.stage import quality_gate
from pipeline.quality.suites import load_suite
from pipeline.store import build_frames, open_store, store_stage
from tests.quality.conftest import WARBOSS, WAZDAKKA, failures, good_records, summary

SUITE = config.EXPECTATIONS_DIR / "damage_matrix.json"
SCENARIOS = ["charged", "cover", "default", "half_range", "stationary"]
PSYKO = f"{WAZDAKKA}:ranged:psyko-gatler"  # Sustained Hits 1
KLAW = f"{WARBOSS}:melee:power-klaw"  # no Sustained Hits
MEQ = "ref:meq"


def _cell(weapon_id: str, profile_id: str, scenario: str) -> str:
    return f"weapon_id = '{weapon_id}' AND profile_id = '{profile_id}' AND scenario = '{scenario}'"


@pytest.fixture(scope="module")
def matrix_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store stage's output for the conftest records: every table plus the engine's matrix (a table)."""
    release = tmp_path_factory.mktemp("matrix")
    frames = build_frames(Dataset(good_records()))
    store_stage(frames, damage_stage(frames), release)
    return release


@pytest.fixture(scope="module")
def suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The damage matrix suite alone (the other suites are tested elsewhere; GX costs per expectation)."""
    folder = tmp_path_factory.mktemp("suites")
    for name in ("damage_matrix.json", "damage_matrix.sql"):
        shutil.copy(config.EXPECTATIONS_DIR / name, folder / name)
    return folder


def _copy(matrix_release: Path, target: Path, *statements: str) -> Path:
    """A copy of the release's store with `statements` run on it."""
    target.mkdir()
    shutil.copy(matrix_release / config.DUCKDB_FILENAME, target / config.DUCKDB_FILENAME)
    con = duckdb.connect(str(target / config.DUCKDB_FILENAME))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()
    return target


def test_the_built_matrix_passes_with_every_cell_counted(
    matrix_release: Path, suites_dir: Path, tmp_path: Path
) -> None:
    release = _copy(matrix_release, tmp_path / "good")
    files = sorted(p.name for p in release.rglob("*"))
    stored = duckdb_content_hashes(release / config.DUCKDB_FILENAME)
    assert quality_gate(release, suites_dir=suites_dir).as_dict() == {
        "passed": True,
        "expectations": 11,
        "critical_failures": 0,
        "warnings": 0,
        "failed": [],
    }
    with open_store(release / config.DUCKDB_FILENAME) as con:
        frame = con.sql(summary_query(load_suite(SUITE), existing_tables(con))).df()
    assert frame["scenario"].tolist() == SCENARIOS
    assert frame["cells"].tolist() == [9 * 3] * 5  # 9 weapons x (2 model profiles + ref:meq)
    checks = [
        "null_keys",
        "negative_values",
        "cells_capped_above_damage",
        "cells_with_too_many_hits",
        "cells_lost_above_capped",
        "cells_over_unit_models",
        "cells_over_unit_wounds",
        "cells_slain_above_lost",
    ]
    assert frame[checks].to_numpy().sum() == 0
    assert frame["null_efficiency_share"].tolist() == [0.0] * 5
    # the gate reads the store and adds quality/ only
    assert sorted(p.name for p in release.rglob("*") if "quality" not in p.parts) == files
    assert duckdb_content_hashes(release / config.DUCKDB_FILENAME) == stored


BREAKS = {
    "negative value": (
        [f"UPDATE damage_matrix SET unsaved = -0.5 WHERE {_cell(PSYKO, MEQ, 'default')}"],
        "negative_values",
        {"scenario": "default", "negative_values": 1},
    ),
    "capped above damage": (
        [
            f"UPDATE damage_matrix SET damage_capped = damage + 0.5 WHERE {_cell(KLAW, MEQ, 'charged')}",
            f"UPDATE damage_matrix SET damage_capped = damage + 1e-12 WHERE {_cell(PSYKO, MEQ, 'charged')}",  # rounding
        ],
        "cells_capped_above_damage",
        {"scenario": "charged", "cells_capped_above_damage": 1},
    ),
    "too many hits": (
        [
            f"UPDATE damage_matrix SET hits = attacks * 1.9 WHERE {_cell(PSYKO, MEQ, 'stationary')}",  # <= 2 x A
            f"UPDATE damage_matrix SET hits = attacks * 2.1 WHERE {_cell(PSYKO, WARBOSS + ':1', 'stationary')}",
            f"UPDATE damage_matrix SET hits = attacks * 1.1 WHERE {_cell(KLAW, MEQ, 'stationary')}",
        ],
        "cells_with_too_many_hits",
        {"scenario": "stationary", "cells_with_too_many_hits": 2},
    ),
    "wounds lost above damage_capped": (
        [
            f"UPDATE damage_matrix SET wounds_lost = damage_capped + 0.5 WHERE {_cell(KLAW, MEQ, 'stationary')}",
            f"UPDATE damage_matrix SET wounds_lost = damage_capped + 1e-12 WHERE {_cell(PSYKO, MEQ, 'stationary')}",
        ],
        "cells_lost_above_capped",
        {"scenario": "stationary", "cells_lost_above_capped": 1},
    ),
    "more wounds lost than the unit has": (  # the Warboss: one model of W6
        [f"UPDATE damage_matrix SET wounds_lost = 6.5 WHERE {_cell(PSYKO, WARBOSS + ':1', 'half_range')}"],
        "cells_over_unit_wounds",
        {"scenario": "half_range", "cells_over_unit_wounds": 1},
    ),
    "slain models that kept wounds": (  # MEQ W2: 2.96 models slain cannot have lost only 2.96 wounds
        [f"UPDATE damage_matrix SET models_slain = wounds_lost WHERE {_cell(KLAW, MEQ, 'cover')}"],
        "cells_slain_above_lost",
        {"scenario": "cover", "cells_slain_above_lost": 1},
    ),
    "null key": (
        [f"UPDATE damage_matrix SET profile_id = NULL WHERE {_cell(KLAW, MEQ, 'cover')}"],
        "null_keys",
        {"scenario": "cover", "null_keys": 1},
    ),
    "null keys in both columns": (  # the weapon's counted by its own scan, the profile's in the unit join
        [
            f"UPDATE damage_matrix SET weapon_id = NULL WHERE {_cell(KLAW, MEQ, 'default')}",
            f"UPDATE damage_matrix SET profile_id = NULL WHERE {_cell(PSYKO, MEQ, 'default')}",
        ],
        "null_keys",
        {"scenario": "default", "null_keys": 2},
    ),
}


@pytest.mark.parametrize(("statements", "column", "row"), BREAKS.values(), ids=BREAKS.keys())
def test_a_broken_matrix_fails_the_gate(
    matrix_release: Path, suites_dir: Path, tmp_path: Path, statements: list[str], column: str, row: dict[str, object]
) -> None:
    release = _copy(matrix_release, tmp_path / "broken", *statements)
    with pytest.raises(QualityGateError) as caught:
        quality_gate(release, suites_dir=suites_dir)
    label = f"expect_column_values_to_be_between({column} in [0, 0])"
    assert str(caught.value).startswith(f"1 critical quality gate(s) failed: damage_matrix: {label} failed on 1 of 5")
    (failed,) = failures(summary(release)).items()
    assert failed[0] == ("damage_matrix", label)
    assert (failed[1]["severity"], failed[1]["unexpected_count"], failed[1]["unexpected_rows"]) == (
        "critical",
        1,
        [row],
    )


def test_many_cells_without_efficiency_are_a_warning(matrix_release: Path, suites_dir: Path, tmp_path: Path) -> None:
    release = _copy(matrix_release, tmp_path / "nulls", "UPDATE damage_matrix SET damage_per_100_points = NULL "
                      "WHERE scenario = 'half_range' AND weapon_id LIKE 'wh:%'")  # fmt: skip
    result = quality_gate(release, suites_dir=suites_dir)
    assert (result.passed, result.critical_failures, result.warnings) == (True, 0, 1)
    outcome = failures(summary(release))[
        ("damage_matrix", "expect_column_values_to_be_between(null_efficiency_share in [0, 0.05])")
    ]
    assert outcome["unexpected_rows"] == [{"scenario": "half_range", "null_efficiency_share": 5 / 9}]


def test_more_models_slain_than_the_unit_has_fails_the_gate(
    matrix_release: Path, suites_dir: Path, tmp_path: Path
) -> None:
    """1.5 of the Warboss's one model: too many models, and 1.5 x W6 more than the 5.1 wounds lost."""
    update = f"UPDATE damage_matrix SET models_slain = 1.5 WHERE {_cell(PSYKO, WARBOSS + ':1', 'default')}"
    release = _copy(matrix_release, tmp_path / "broken", update)
    with pytest.raises(QualityGateError):
        quality_gate(release, suites_dir=suites_dir)
    failed = failures(summary(release))
    labels = {
        f"expect_column_values_to_be_between({c} in [0, 0])": c
        for c in ("cells_over_unit_models", "cells_slain_above_lost")
    }
    assert {label for _, label in failed} == set(labels)
    for (_, label), outcome in failed.items():
        assert outcome["unexpected_rows"] == [{"scenario": "default", labels[label]: 1}]
