"""The damage stage on published frames: targets, Stealth from abilities, reference profiles."""

from __future__ import annotations

import pytest

from pipeline.damage.reference import reference_stage
from pipeline.damage.reference_slice import damage_vs_reference
from pipeline.damage.stage import damage_stage, start_damage, targets_of
from pipeline.dataset import Dataset
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.store import build_frames
from schemas import Ability, Datasheet, ModelProfile, Points, Weapon
from schemas.records import Record


def _dataset(stealth: bool) -> Dataset:
    records: list[Record] = [
        Datasheet(datasheet_id=sheet, source_id="t", faction="Test", name=sheet) for sheet in ("shooter", "target")
    ]
    records.append(
        ModelProfile(
            profile_id="target:1",
            datasheet_id="target",
            name="Target",
            toughness=4,
            save=3,
            wounds=2,
            keywords=["INFANTRY"],
            unit_size=5,
        )
    )
    if stealth:
        records.append(Ability(datasheet_id="target", name="Stealth", kind="core"))
    typed = parse_ability_list("")
    for kind, rng in (("ranged", 24), ("melee", None)):
        records.append(
            Weapon(
                weapon_id=f"w-{kind}",
                datasheet_id="shooter",
                name=kind,
                kind=kind,
                range_inches=rng,
                attacks="10",
                skill=3,
                strength=4,
                ap=0,
                damage="1",
                typed_abilities=typed,
            )
        )
    records.append(Points(datasheet_id="shooter", models=1, cost=100))
    return reference_stage(Dataset(records)).dataset


@pytest.mark.parametrize(("stealth", "ranged_hits"), [(False, 10 * 4 / 6), (True, 10 * 3 / 6)])
def test_stealth_from_the_datasheets_abilities_costs_ranged_hits_only(stealth: bool, ranged_hits: float) -> None:
    frames = build_frames(_dataset(stealth))
    assert targets_of(frames).filter(profile_id="target:1")["stealth"].to_list() == [stealth]
    matrix = damage_stage(frames).matrix("default", profile_ids=["target:1"])
    hits = dict(zip(matrix["weapon_id"].cast(str), matrix["hits"], strict=True))
    # BS 3+: 4/6 hit; Stealth -1 -> 3/6 (a 6 still hits). Melee ignores Stealth: 10 x 4/6.
    assert hits["w-ranged"] == pytest.approx(ranged_hits)
    assert hits["w-melee"] == pytest.approx(10 * 4 / 6)


def test_reference_profiles_are_targets_without_stealth() -> None:
    targets = targets_of(build_frames(_dataset(False)))
    refs = targets.filter(targets["profile_id"].str.starts_with("ref:"))
    assert refs.height == 8 and not refs["stealth"].any()


def test_damage_stage_leaves_its_frames_as_they_were() -> None:
    frames = build_frames(_dataset(True))
    before = {name: frame.clone() for name, frame in frames.items()}
    computation = damage_stage(frames)
    assert computation.cells == 2 * (1 + 8) * 5
    assert frames.keys() == before.keys()
    assert all(frames[name].equals(before[name]) for name in before)


def test_the_damage_started_beside_gives_what_the_stage_gives_and_ignores_later_changes() -> None:
    frames = build_frames(_dataset(True))
    started = start_damage(frames)
    frames["weapons"] = frames["weapons"].clear()  # after the start: the thread still has the table it was given
    outputs = started.result()
    again = damage_stage(build_frames(_dataset(True)))
    assert outputs.computation.cells == again.cells == 2 * (1 + 8) * 5
    assert outputs.computation.matrix("default").equals(again.matrix("default"))
    assert outputs.vs_reference.equals(damage_vs_reference(again, build_frames(_dataset(True))))


def test_a_damage_failure_beside_is_raised_when_its_outputs_are_asked_for() -> None:
    frames = {name: frame for name, frame in build_frames(_dataset(False)).items() if name != "weapons"}
    started = start_damage(frames)
    with pytest.raises(KeyError, match="weapons"):
        started.result()
