"""The text resolver on built datasheets: phrasings and shapes the real export does not have."""

from __future__ import annotations

from pipeline.loadouts.text import profiles_of, resolve
from schemas.records import DatasheetLoadout
from tests.loadouts.builders import facts, profile, weapon


def groups(rows: list[DatasheetLoadout], models: int) -> dict[str, tuple[str, int, dict[str, int]]]:
    found: dict[str, tuple[str, int, dict[str, int]]] = {}
    for row in rows:
        if row.models == models:
            found.setdefault(row.model_group, (row.profile_name, row.model_count, {}))[2][
                row.weapon_id.rsplit(":", 1)[1]
            ] = row.per_model
    return found


def test_additionally_keeps_what_every_model_carries() -> None:
    outcome = resolve(facts(
        "Every model is equipped with: bolter.\nThe Theyn is additionally equipped with: plasma axe.",
        ["1 Theyn", "9 Warriors"], [10], [profile("Warriors")], ["Bolter", "Plasma axe"],
    ))  # fmt: skip
    assert groups(outcome.rows, 10) == {
        "Theyn": ("Warriors", 1, {"Bolter": 1, "Plasma axe": 1}),
        "Warriors": ("Warriors", 9, {"Bolter": 1}),
    }


def test_every_other_model_takes_the_models_no_statement_named() -> None:
    outcome = resolve(facts(
        "The Champion is equipped with: power sword.\nEvery other model is equipped with: lasgun.",
        ["1 Champion", "1 Medic", "3 Troopers"], [5], [profile("Squad")], ["Power sword", "Lasgun"],
    ))  # fmt: skip
    assert groups(outcome.rows, 5) == {
        "Champion": ("Squad", 1, {"Power sword": 1}),
        "Medic, Troopers": ("Squad", 4, {"Lasgun": 1}),
    }


def test_one_and_every_other_split_a_part() -> None:
    outcome = resolve(facts(
        "One Hulk is equipped with: belly-flamer.\nEvery other Hulk is equipped with: claws.",
        ["2-4 Hulks"], [3], [profile("Hulk")], ["Belly-flamer", "Claws"],
    ))  # fmt: skip
    assert groups(outcome.rows, 3) == {
        "Hulks (1)": ("Hulk", 1, {"Belly-flamer": 1}),
        "Hulks": ("Hulk", 2, {"Claws": 1}),
    }


def test_a_count_at_least_the_part_gives_it_whole() -> None:
    outcome = resolve(facts("3 Raveners are equipped with: talons.", ["2-3 Raveners"], [2], [profile("Ravener")],
                            ["Talons"]))  # fmt: skip
    assert groups(outcome.rows, 2) == {"Raveners": ("Ravener", 2, {"Talons": 1})}


def test_models_no_statement_covers_leave_the_datasheet_unresolved() -> None:
    outcome = resolve(facts("The Sergeant is equipped with: bolt pistol.", ["1 Sergeant", "4 Scouts"], [5],
                            [profile("Scout Squad")], ["Bolt pistol"]))  # fmt: skip
    assert outcome.rows == []
    assert [(i.reason, i.detail, i.severity) for i in outcome.issues] == [
        ("models without a loadout statement", "Scouts", "unresolved")
    ]


def test_a_statement_about_absent_models_is_a_note() -> None:
    outcome = resolve(facts(
        "Every Horror is equipped with: flames.\nEvery Brimstone added by the Split ability is equipped with: fire.",
        ["10 Horrors"], [10], [profile("Horror")], ["Flames", "Fire"],
    ))  # fmt: skip
    assert len(outcome.rows) == 1
    assert [i.severity for i in outcome.issues] == ["note"]


def test_no_text_one_model_no_options_carries_every_weapon_once() -> None:
    outcome = resolve(facts(None, ["1 Walker"], [1], [profile("Walker")],
                            ["Lascannon", "Plasma gun – standard", "Plasma gun – supercharge"]))  # fmt: skip
    assert {(r.weapon_id.rsplit(":", 1)[1], r.profile_group, r.method) for r in outcome.rows} == {
        ("Lascannon", "Lascannon", "every weapon"),
        ("Plasma gun – standard", "Plasma gun", "every weapon"),
        ("Plasma gun – supercharge", "Plasma gun", "every weapon"),
    }


def test_no_text_with_wargear_options_is_unresolved() -> None:
    outcome = resolve(facts(None, ["1 Walker"], [1], [profile("Walker")], ["Lascannon"], has_options=True))
    assert outcome.rows == [] and outcome.issues[0].reason == "no loadout statement"


def test_carrying_nothing_is_resolved_with_a_note() -> None:
    outcome = resolve(facts("This unit is equipped with: nothing.", ["1 Wall"], [1], [profile("Wall")], ["Gun"]))
    assert outcome.rows == []
    assert [(i.reason, i.severity) for i in outcome.issues] == [("default loadout carries no weapon", "note")]


def test_character_profiles_are_allocated_last_then_the_most_numerous_first() -> None:
    outcome = resolve(facts(
        "Every model is equipped with: claws.", ["1 Lord", "2 Guards", "5 Hounds"], [8],
        [profile("Lord", "CHARACTER"), profile("Guards"), profile("Hounds")], ["Claws"],
    ))  # fmt: skip
    assert {r.profile_name: r.allocation_order for r in outcome.rows} == {"Hounds": 1, "Guards": 2, "Lord": 3}


def test_a_copy_home_weapon_row_is_named_with_its_datasheet() -> None:
    outcome = resolve(facts("This model is equipped with: laspistol.", ["1 Officer"], [1], [profile("Officer")], [],
                            home_weapons=[weapon("Laspistol", "home")]))  # fmt: skip
    assert [(r.weapon_id, r.weapon_datasheet_id) for r in outcome.rows] == [("home:ranged:Laspistol", "home")]


def test_profiles_of_parts() -> None:
    parts = [("Biker Sergeant", 1), ("Space Marine Bikers", 4), ("Attack Bike", 1)]
    assert profiles_of(parts, ["SPACE MARINE BIKE", "ATTACK BIKE"]) == {
        "Biker Sergeant": "SPACE MARINE BIKE",  # shares the rank and file's statline
        "Space Marine Bikers": "SPACE MARINE BIKE",
        "Attack Bike": "ATTACK BIKE",
    }
    catch_all = profiles_of([("Rogue Trader", 1), ("Lectro-Maester", 1)], ["ROGUE TRADER", "OTHER MODELS"])
    assert catch_all == {"Rogue Trader": "ROGUE TRADER", "Lectro-Maester": "OTHER MODELS"}
