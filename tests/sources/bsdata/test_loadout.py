"""Default loadouts read by the BSData walk, on a hand-made catalogue (fixtures/bsdata/loadouts: its header
names each pattern)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.bsdata.parser import parse
from schemas.records import DatasheetLoadout, LoadoutIssue, Record, Weapon

LOADOUTS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "bsdata" / "loadouts"
Groups = dict[str, tuple[str, int, int, dict[str, int]]]


@pytest.fixture(scope="module")
def built() -> list[Record]:
    return list(parse(LOADOUTS))


def option(records: list[Record], unit: str, models: int) -> Groups:
    """model_group -> (profile, count, allocation order, {weapon name: per_model})."""
    names = {r.weapon_id: r.name for r in records if isinstance(r, Weapon)}
    found: Groups = {}
    for row in records:
        if isinstance(row, DatasheetLoadout) and row.datasheet_id == f"bs:lo-1:{unit}" and row.models == models:
            group = found.setdefault(row.model_group, (row.profile_name, row.model_count, row.allocation_order, {}))
            group[3][names[row.weapon_id]] = row.per_model
    return found


def issues(records: list[Record], unit: str) -> list[tuple[str, str, str]]:
    return [
        (i.reason, i.detail, i.severity)
        for i in records
        if isinstance(i, LoadoutIssue) and i.datasheet_id == f"bs:lo-1:{unit}"
    ]


@pytest.mark.parametrize(("models", "strikers"), [(5, 4), (10, 9)])
def test_models_of_a_group_and_a_default_met_off_the_default_loadout_first(
    built: list[Record], models: int, strikers: int
) -> None:
    """The Sergeant's Rifle (group default, by link id) is first walked inside the non-default upgrade
    `Rifle w/ Launcher`; Strikers carry 2 Twin shards (min 2); `Striker w/ Launcher` (0-2) is in no option."""
    assert option(built, "u-strike", models) == {
        "Strike Sergeant": ("Strike Sergeant", 1, 2, {"Rifle": 1, "Knife": 1}),
        "Striker": ("Striker", strikers, 1, {"Rifle": 1, "Knife": 1, "Twin shard": 2}),
    }
    assert issues(built, "u-strike") == []


def test_group_defaults_without_a_usable_default_id(built: list[Record]) -> None:
    """Heavy Stubber: stale id, named after a member; Weapons (2): two defaultAmount members; Claws (2): the
    member with min 1 of max 2 fills it; Arm: the default id names a shared entry called like a member."""
    assert option(built, "u-walker", 1) == {
        "Gun Walker": (
            "Gun Walker", 1, 1, {"Heavy stubber": 1, "Autocannon": 1, "Missile pod": 1, "Claw": 2, "Drill": 1},
        )
    }  # fmt: skip


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("u-open", ("required weapon choice without a default", "Open Lord: Melee", "unresolved")),
        ("u-none", ("required weapon choice without a default", "None Lord: Melee", "unresolved")),
        ("u-stale", ("required weapon choice whose default id names nothing", "Stale Lord: Ranged", "unresolved")),
    ],
)
def test_open_choices_leave_the_unit_unresolved(built: list[Record], unit: str, expected: tuple[str, ...]) -> None:
    assert issues(built, unit) == [expected]
    assert option(built, unit, 1) == {}


def test_a_model_without_a_statline_takes_the_one_its_name_holds(built: list[Record]) -> None:
    assert option(built, "u-hulks", 4) == {
        "Hulk": ("Hulk", 3, 1, {"Knife": 1}),
        "Hulk w/ flamer": ("Hulk", 1, 1, {"Flamer": 1, "Knife": 1}),
    }


def test_a_model_group_is_filled_with_its_default_member(built: list[Record]) -> None:
    """Priced, the group `9 Troopers` holds a flamer and a vox trooper; its default member is the plain one."""
    assert option(built, "u-troopers", 10) == {
        "Trooper Sergeant": ("Trooper Squad", 1, 1, {"Knife": 1}),
        "Trooper": ("Trooper Squad", 9, 1, {"Rifle": 1}),
    }
