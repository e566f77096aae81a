"""The shipped reference profiles: the archetypes every calculator user knows, with their stats."""

from __future__ import annotations

import pytest

from pipeline import config
from pipeline.damage import load_reference_profiles, reference_targets_frame
from pipeline.damage.reference import reference_stage
from pipeline.dataset import Dataset
from schemas.records import Datasheet, ReferenceProfile

# profile_id: (T, Sv, invuln, invuln condition, W, unit size, keywords) as listed in issue 5
EXPECTED = {
    "ref:geq": (3, 5, None, None, 1, 10, ["INFANTRY"]),
    "ref:meq": (4, 3, None, None, 2, 5, ["INFANTRY"]),
    "ref:teq": (5, 2, 4, None, 3, 5, ["INFANTRY"]),
    "ref:ork_boyz": (5, 5, None, None, 1, 10, ["INFANTRY"]),
    "ref:light_vehicle": (9, 3, None, None, 10, 1, ["VEHICLE"]),
    "ref:main_battle_tank": (11, 2, None, None, 13, 1, ["VEHICLE"]),
    "ref:monster": (10, 2, 4, None, 10, 1, ["MONSTER"]),
    "ref:knight": (12, 3, 5, "ranged", 22, 1, ["VEHICLE", "TITANIC"]),
}


@pytest.fixture(scope="module")
def profiles() -> dict[str, ReferenceProfile]:
    return {p.profile_id: p for p in load_reference_profiles()}


def test_the_file_lives_where_config_says() -> None:
    assert config.REFERENCE_PROFILES_FILE.is_file()


def test_exactly_the_documented_archetypes(profiles: dict[str, ReferenceProfile]) -> None:
    assert list(profiles) == list(EXPECTED)


@pytest.mark.parametrize(("profile_id", "stats"), EXPECTED.items())
def test_reference_stats(profiles: dict[str, ReferenceProfile], profile_id: str, stats: tuple[object, ...]) -> None:
    p = profiles[profile_id]
    assert (p.toughness, p.save, p.invuln, p.invuln_condition, p.wounds, p.unit_size, p.keywords) == stats
    assert p.fnp is None and p.damage_reduction is None
    assert p.description and p.has_statline
    assert p.source_id == "reference:reference_profiles.json"


def test_targets_frame_has_one_row_per_profile() -> None:
    frame = reference_targets_frame()
    assert frame["profile_id"].to_list() == list(EXPECTED)
    assert frame.filter(frame["profile_id"] == "ref:knight")["keywords"].to_list() == [["VEHICLE", "TITANIC"]]


def test_reference_stage_adds_the_profiles_to_a_new_dataset() -> None:
    sheet = Datasheet(datasheet_id="d1", source_id="t:1", faction="Orks", name="Boyz")
    dataset = Dataset([sheet])
    staged = reference_stage(dataset)
    assert [p.profile_id for p in staged.dataset.records(ReferenceProfile)] == list(EXPECTED)
    assert staged.report.as_dict() == {"profiles": 8, "profile_ids": list(EXPECTED)}
    assert staged.dataset.records(Datasheet) is dataset.records(Datasheet)
    assert dataset.counts() == {"datasheets": 1}  # the input is as it was
