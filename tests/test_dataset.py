"""The dataset between stages: typed tables, new datasets instead of changes, one model per table."""

from __future__ import annotations

import pytest

from pipeline.dataset import Dataset
from schemas.records import Datasheet, ModelProfile, Points, Record, Weapon


def _weapon(weapon_id: str) -> Weapon:
    return Weapon(
        weapon_id=weapon_id,
        datasheet_id="d1",
        name="Choppa",
        kind="melee",
        attacks="3",
        skill=3,
        strength=4,
        ap=-1,
        damage="1",
    )


class _LoudWeapon(Weapon):
    """A subclass of Weapon: a Weapon, but not the same model class."""


class _WeaponNote(Record):
    """An unrelated model class writing to the `weapons` table."""

    TABLE = "weapons"
    weapon_id: str


SHEET = Datasheet(datasheet_id="d1", source_id="t:1", faction="Orks", name="Boyz")
BOY = ModelProfile(profile_id="p1", datasheet_id="d1", name="Boy", toughness=5, save=5, wounds=1)


def test_records_are_typed_tuples_in_arrival_order() -> None:
    dataset = Dataset([SHEET, _weapon("w2"), BOY, _weapon("w1")])
    assert [w.weapon_id for w in dataset.records(Weapon)] == ["w2", "w1"]
    assert dataset.records(Datasheet) == (SHEET,)
    assert dataset.records(Points) == ()
    assert dataset.counts() == {"datasheets": 1, "model_profiles": 1, "weapons": 2}


def test_records_of_a_model_that_is_not_the_tables() -> None:
    dataset = Dataset([_WeaponNote(weapon_id="w1")])
    with pytest.raises(TypeError, match="weapons holds _WeaponNote, not Weapon"):
        dataset.records(Weapon)
    assert dataset.records(_WeaponNote)[0].weapon_id == "w1"


def test_a_table_holds_one_model_class() -> None:
    with pytest.raises(TypeError, match="weapons mixes Weapon and _LoudWeapon"):
        Dataset([_weapon("w1"), _LoudWeapon(**_weapon("w2").model_dump())])


def test_replacing_gives_a_new_dataset_and_leaves_the_old_one() -> None:
    weapons = (_weapon("w1"), _weapon("w2"))
    old = Dataset([SHEET, BOY, *weapons])
    new = old.replacing({Weapon: [weapons[1]], Points: [Points(datasheet_id="d1", models=10, cost=80)]})
    assert [w.weapon_id for w in new.records(Weapon)] == ["w2"]
    assert [p.cost for p in new.records(Points)] == [80]
    assert old.records(Weapon) == weapons and old.records(Points) == ()
    assert new.records(Datasheet) is old.records(Datasheet)  # untouched tables are shared, not copied


def test_replacing_checks_the_records_fit_the_model() -> None:
    with pytest.raises(TypeError, match="Datasheet given for table weapons"):
        Dataset().replacing({Weapon: [SHEET]})


def test_adding_appends_to_a_new_dataset() -> None:
    old = Dataset([_weapon("w1")])
    new = old.adding([_weapon("w2"), SHEET])
    assert [w.weapon_id for w in new.records(Weapon)] == ["w1", "w2"]
    assert [w.weapon_id for w in old.records(Weapon)] == ["w1"] and old.records(Datasheet) == ()


def test_a_dataset_has_no_way_to_change_in_place() -> None:
    """Stages can only derive new datasets: no public method appends or replaces in place."""
    public = {name for name in dir(Dataset) if not name.startswith("_")}
    assert public == {"adding", "counts", "records", "replacing", "table", "tables"}
