"""Unit options from golden rows (`pipeline/matchups/sides.py`): a hand-made squad (a Sergeant and four
troopers), a Leader, and the rules of docs/units.md#integration."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from pipeline.matchups.lookup import UnitNotFound, find_unit, fold_name
from pipeline.matchups.partition import MatchupInputs, compute_matchup_parts
from pipeline.matchups.sides import GoldenTables, UnitOption, unit_options
from pipeline.units.model import NO_ROLL, Phase

SQUAD, LEADER = "unit:test:squad", "unit:test:captain"
KEY = ("attacker_unit_id", "attacker_models", "target_unit_id", "target_models", "phase")


def _profile(unit: str, name: str, **stats: Any) -> dict[str, Any]:
    base = {"unit_id": unit, "profile_name": name, "toughness": 4, "save": 3, "wounds": 2, "keywords": ["INFANTRY"]}
    return base | stats


def _weapon(unit: str, wid: str, kind: str, abilities: list[str], attacks: str = "2") -> dict[str, Any]:
    return {"unit_id": unit, "weapon_id": wid, "name": wid, "kind": kind, "attacks": attacks, "skill": 3,
            "strength": "4", "ap": 0, "damage": "1", "abilities": abilities}  # fmt: skip


def _carry(unit: str, group: str, profile: str, count: int, wid: str, per_model: int = 1) -> dict[str, Any]:
    return {"unit_id": unit, "models": 5 if unit == SQUAD else 1, "option": "o", "model_group": group,
            "profile_name": profile, "model_count": count, "weapon_id": wid, "per_model": per_model,
            "profile_group": wid}  # fmt: skip


TABLES = GoldenTables(
    units=[
        {"unit_id": SQUAD, "name": "Test Squad", "faction": "Test", "datasheet_ids": ["ds:squad"]},
        {"unit_id": LEADER, "name": "Test Captain", "faction": "Test", "datasheet_ids": ["ds:captain"]},
    ],
    profiles=[
        _profile(SQUAD, "Trooper"),
        _profile(SQUAD, "Sergeant", keywords=["INFANTRY"], invuln=5, invuln_melee=4),
        _profile(LEADER, "Captain", toughness=5, wounds=5, invuln=4, halve_damage=True, keywords=["CHARACTER"]),
    ],
    weapons=[
        _weapon(SQUAD, "rifle", "ranged", []),
        _weapon(SQUAD, "pistol", "ranged", ["pistol"]),
        _weapon(SQUAD, "knife", "melee", []),
        _weapon(SQUAD, "sword", "melee", []),
        _weapon(SQUAD, "tail", "melee", ["extra attacks"]),
        _weapon(LEADER, "relic", "melee", []),
    ],
    points=[
        {"unit_id": SQUAD, "models": 5, "cost": 100, "description": "o", "composition": None},
        {"unit_id": LEADER, "models": 1, "cost": 80, "description": "o", "composition": None},
    ],
    loadouts=[
        _carry(SQUAD, "troopers", "Trooper", 4, "rifle"),
        _carry(SQUAD, "troopers", "Trooper", 4, "pistol"),
        _carry(SQUAD, "troopers", "Trooper", 4, "knife"),
        _carry(SQUAD, "sergeant", "Sergeant", 1, "pistol", per_model=2),
        _carry(SQUAD, "sergeant", "Sergeant", 1, "knife"),
        _carry(SQUAD, "sergeant", "Sergeant", 1, "sword"),
        _carry(SQUAD, "sergeant", "Sergeant", 1, "tail"),
        _carry(LEADER, "captain", "Captain", 1, "relic"),
    ],
    leader_pairs=[(LEADER, SQUAD)],
)


@pytest.fixture(scope="module")
def options() -> dict[str, UnitOption]:
    return {o.unit_id: o for o in unit_options(TABLES)}


def test_every_unit_and_the_attached_pair(options: dict[str, UnitOption]) -> None:
    assert sorted(options) == [LEADER, f"{LEADER}+{SQUAD}", SQUAD]
    pair = options[f"{LEADER}+{SQUAD}"]
    assert (pair.name, pair.models, pair.cost, pair.faction) == ("Test Captain + Test Squad", 6, 180, "Test")


def test_the_target_in_allocation_order_with_each_groups_saves(options: dict[str, UnitOption]) -> None:
    target = options[SQUAD].target
    assert target is not None
    troopers, sergeant = target.groups
    assert (troopers.count, sergeant.count, target.total_wounds) == (4, 1, 10)  # most numerous first
    assert (troopers.invuln_ranged, troopers.invuln_melee) == (NO_ROLL, NO_ROLL)
    assert (sergeant.invuln_ranged, sergeant.invuln_melee) == (5, 4)  # the melee-only improvement
    assert troopers.points == sergeant.points == 20  # 100 points / 5 models


def test_the_leader_halves_damage_and_is_allocated_last(options: dict[str, UnitOption]) -> None:
    target = options[f"{LEADER}+{SQUAD}"].target
    assert target is not None
    assert [g.count for g in target.groups] == [4, 1] and target.groups[0].toughness == 4  # the Bodyguard's T
    (captain,) = target.leader
    assert (captain.halve_damage, captain.character, captain.wounds) == (True, True, 5)
    assert not any(g.halve_damage for g in target.groups)


def test_shooting_fires_pistols_only_without_another_ranged_weapon(options: dict[str, UnitOption]) -> None:
    side = options[SQUAD].sides[Phase.SHOOTING]
    fired = sorted((e.models, [w.weapon_id for w in e.choices]) for e in side.entries)
    assert fired == [(2, ["pistol"]), (4, ["rifle"])]  # troopers: rifle, not pistol; sergeant: two pistols


def test_fight_is_one_melee_weapon_per_model_plus_extra_attacks(options: dict[str, UnitOption]) -> None:
    side = options[SQUAD].sides[Phase.FIGHT]
    entries = sorted((e.models, sorted(w.weapon_id for w in e.choices)) for e in side.entries)
    assert entries == [(1, ["knife", "sword"]), (1, ["tail"]), (4, ["knife"])]
    pair = options[f"{LEADER}+{SQUAD}"].sides[Phase.FIGHT]
    assert len(pair.entries) == 4 and pair.points == 180  # the Captain's relic joins, both costs count


UNITS = [
    {"unit_id": "unit:orks:boyz", "name": "Boyz"},
    {"unit_id": "unit:orks:beast-snagga-boyz", "name": "Beast Snagga Boyz"},
    {"unit_id": "unit:tau-empire:fire-warriors", "name": "Fire Warriors"},
    {"unit_id": "unit:aeldari:avatar-of-khaine", "name": "Avatar of Khaine"},
]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("Boyz", "unit:orks:boyz"),  # an exact name wins over the names containing it
        ("BOYZ", "unit:orks:boyz"),
        ("unit:orks:beast-snagga-boyz", "unit:orks:beast-snagga-boyz"),
        ("snagga", "unit:orks:beast-snagga-boyz"),
        ("fire-warriors", "unit:tau-empire:fire-warriors"),
        ("Boyz + Fire Warriors", "unit:orks:boyz+unit:tau-empire:fire-warriors"),
    ],
)
def test_units_are_found_by_id_name_or_part_of_a_name(query: str, found: str) -> None:
    assert find_unit(UNITS, query) == found


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("oyz", "'oyz' names 2 units: unit:orks:boyz (Boyz), unit:orks:beast-snagga-boyz (Beast Snagga Boyz)"),
        ("Avatar of Khane", "no unit is named 'Avatar of Khane'; did you mean: Avatar of Khaine"),
        ("Terminators", "no unit is named 'Terminators'"),
    ],
)
def test_ambiguous_or_unknown_names(query: str, message: str) -> None:
    with pytest.raises(UnitNotFound) as error:
        find_unit(UNITS, query)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "folded"), [("T’au Empire", "tau empire"), ("Ork Boyz!", "ork boyz"), ("Crúcible", "crucible")]
)
def test_names_fold(text: str, folded: str) -> None:
    assert fold_name(text) == folded


def test_a_faction_in_chunks_gives_the_same_rows(options: dict[str, UnitOption]) -> None:
    """Three attacking options, three targets: at most 3 pairs per phase and file puts one attacker in each file."""
    every = list(options.values())
    whole = MatchupInputs(every)
    chunked = MatchupInputs(every, max_pairs=3)
    (key,) = whole.keys(["default"])
    assert key.path("test") == "unit_matchups/scenario=default/attacker_faction=test/part-0-test.parquet"
    keys = chunked.keys(["default"])
    assert [(k.chunk, k.first, k.count) for k in keys] == [(0, 0, 1), (1, 1, 1), (2, 2, 1)]
    parts = [compute_matchup_parts(chunked, k)["test"] for k in keys]
    assert [p.num_rows for p in parts] == [3, 6, 6]  # the Captain first: no ranged weapon, 3 fight rows only
    one = compute_matchup_parts(whole, key)["test"]
    order = [(c, "ascending") for c in KEY]
    got, want = pa.concat_tables(parts).sort_by(order).to_pylist(), one.sort_by(order).to_pylist()
    assert [[r[c] for c in KEY] for r in got] == [[r[c] for c in KEY] for r in want]
    for a, b in zip(got, want, strict=True):  # each chunk's engine batches differ: equal to rounding
        assert a == {k: v if isinstance(v, str) else pytest.approx(v, rel=1e-9, abs=1e-12) for k, v in b.items()}
