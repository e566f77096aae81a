"""Default loadouts read from the real Wahapedia export (July 2025) and the page seeds.

Every expected value was read in the CSV files first: Datasheets.csv `loadout`,
Datasheets_unit_composition.csv, Datasheets_models_cost.csv, Datasheets_models.csv and
Datasheets_wargear.csv rows of the datasheet named in the test.
"""

from __future__ import annotations

import pytest

from tests.loadouts.conftest import Loadouts

# Intercessor Squad (000001157): "Every model is equipped with: bolt pistol; bolt rifle; close combat
# weapon."; "1 Intercessor Sergeant", "4-9 Intercessors"; 5 models 80 / 10 models 160; one profile.
INTERCESSORS = {"Bolt pistol": 1, "Bolt rifle": 1, "Close combat weapon": 1}


@pytest.mark.parametrize("models", [5, 10])
def test_intercessor_squad_every_model_carries_the_same(text_loadouts: Loadouts, models: int) -> None:
    option = text_loadouts.option("wh:000001157", models)
    assert option == {
        "Intercessor Sergeant, Intercessors": {
            "profile": "Intercessor Squad", "count": models, "order": 1, "weapons": INTERCESSORS,
        }
    }  # fmt: skip


def test_tankbustas_boss_nob_swaps_weapons_and_carries_two_pistols(text_loadouts: Loadouts) -> None:
    """000000020: The Boss Nob: 2 rokkit pistols; choppa. Each Tankbusta: rokkit launcha; close combat
    weapon. "1 Boss Nob", "5 Tankbustas"; 6 models; one profile TANKBUSTAS."""
    assert text_loadouts.option("wh:000000020", 6) == {
        "Boss Nob": {"profile": "TANKBUSTAS", "count": 1, "order": 1, "weapons": {"Rokkit pistol": 2, "Choppa": 1}},
        "Tankbustas": {
            "profile": "TANKBUSTAS", "count": 5, "order": 1,
            "weapons": {"Rokkit launcha": 1, "Close combat weapon": 1},
        },
    }  # fmt: skip


def test_boyz_split_into_two_profiles_the_boss_nob_allocated_last(text_loadouts: Loadouts) -> None:
    """000000016: profiles BOY and BOSS NOB; "1 Boss Nob", "9-19 Boyz"; 20 models: 19 Boyz."""
    option = text_loadouts.option("wh:000000016", 20)
    assert {g: (o["profile"], o["count"], o["order"]) for g, o in option.items()} == {
        "Boss Nob": ("BOSS NOB", 1, 2),
        "Boyz": ("BOY", 19, 1),
    }
    assert option["Boss Nob"]["weapons"] == {"Slugga": 1, "Big choppa": 1}


def test_vehicle_carries_each_listed_weapon_once(text_loadouts: Loadouts) -> None:
    """000000700 Leman Russ Battle Tank: lascannon; Leman Russ battle cannon; armoured tracks (of 11
    wargear rows, the rest options)."""
    option = text_loadouts.option("wh:000000700", 1)
    assert option["Leman Russ Battle Tank"]["weapons"] == {
        "Lascannon": 1, "Leman Russ battle cannon": 1, "Armoured tracks": 1,
    }  # fmt: skip


def test_character_reads_a_name_spelled_differently(text_loadouts: Loadouts) -> None:
    """000000073 Captain: `master-crafted bolter` in the text, `Master-crafted boltgun` in the wargear."""
    option = text_loadouts.option("wh:000000073", 1)
    assert option["Captain"]["weapons"] == {"Bolt pistol": 1, "Master-crafted boltgun": 1, "Close combat weapon": 1}


def test_multi_profile_weapon_is_one_choice_with_both_profiles(text_loadouts: Loadouts) -> None:
    """000002748 Ravenwing Command Squad: `plasma talon` = rows `Plasma talon – standard` and
    `– supercharge`; `Every other model` are the Apothecary and the Ancient."""
    rows = [r for r in text_loadouts.rows["wh:000002748"] if r.model_group == "Ravenwing Apothecary, Ravenwing Ancient"]
    talons = sorted((r.weapon_id, r.profile_group, r.per_model, r.model_count) for r in rows if "talon" in r.weapon_id)
    assert talons == [
        ("wh:000002748:ranged:plasma-talon-standard", "Plasma talon", 1, 2),
        ("wh:000002748:ranged:plasma-talon-supercharge", "Plasma talon", 1, 2),
    ]


def test_counted_subjects_carve_models_out_of_a_part(text_loadouts: Loadouts) -> None:
    """000000966 Havocs: Champion; `2 Havocs are equipped with` autocannons, then `2 Havocs` lascannons."""
    option = text_loadouts.option("wh:000000966", 5)
    assert {g: (o["count"], o["weapons"]) for g, o in option.items()} == {
        "Havoc Champion": (1, {"Flamer": 1, "Astartes chainsword": 1}),
        "Havocs (1)": (2, {"Havoc autocannon": 1, "Close combat weapon": 1}),
        "Havocs": (2, {"Havoc lascannon": 1, "Close combat weapon": 1}),
    }


def test_copy_takes_its_home_weapons(text_loadouts: Loadouts) -> None:
    """000004063 Havocs (Chaos Daemons) has no wargear rows; 000000966 Havocs (Chaos Space Marines), same
    publication 000000012, has them."""
    rows = text_loadouts.rows["wh:000004063"]
    assert rows and {r.weapon_datasheet_id for r in rows} == {"wh:000000966"}
    assert text_loadouts.option("wh:000004063", 5) == text_loadouts.option("wh:000000966", 5)


def test_partial_copy_fills_missing_weapons_from_home(text_loadouts: Loadouts) -> None:
    """000003939 Cadian Command Squad (Genestealer Cults) lists 3 of the weapons of 000002609 (Astra
    Militarum, same publication): its own bolt pistol row is used where it has one."""
    rows = text_loadouts.rows["wh:000003939"]
    homes = {text_loadouts.weapon_names[r.weapon_id]: r.weapon_datasheet_id for r in rows}
    assert homes["Laspistol"] == "wh:000002609"
    assert homes["Chainsword"] == "wh:000002609"


def test_page_export_without_text_carries_every_weapon_once(text_loadouts: Loadouts) -> None:
    """Lord Invocatus page: no loadout text, WARGEAR OPTIONS `None`, one model: all three weapons."""
    sheet = "page:world-eaters:lord-invocatus"
    option = text_loadouts.option(sheet, 1)
    assert option["Lord Invocatus"]["weapons"] == {
        "Bolt pistol": 1, "Coward’s Bane": 1, "Juggernaut’s bladed horn": 1,
    }  # fmt: skip
    assert {r.method for r in text_loadouts.rows[sheet]} == {"every weapon"}
    assert text_loadouts.reasons(sheet) == {("no loadout text: one of each weapon assumed", "note")}


@pytest.mark.parametrize(
    ("datasheet_id", "reason"),
    [
        ("wh:000003829", "item names no weapon"),  # Jokaero: `unholy gaze`, wargear `Jokaero weapons`
        ("wh:000004059", "option does not fit the composition"),  # 1 + 3 models, option of 7
        ("wh:000003821", "no loadout statement"),  # Kill Team Cassius: no loadout text, 4 kinds of models
        ("wh:000002770", "no points option"),  # Sir Hekhtur: no Datasheets_models_cost row
    ],
)
def test_unresolved_datasheets_have_a_reason_and_no_rows(
    text_loadouts: Loadouts, datasheet_id: str, reason: str
) -> None:
    assert (reason, "unresolved") in text_loadouts.reasons(datasheet_id)
    assert datasheet_id not in text_loadouts.rows


def test_at_least_95_percent_of_datasheets_with_weapons_resolve(text_loadouts: Loadouts) -> None:
    rates = text_loadouts.report.by_format
    assert rates["wahapedia_csv"].datasheets == 1604
    assert rates["wahapedia_csv"].rate >= 0.95
    assert rates["page_export"].resolved == 3
