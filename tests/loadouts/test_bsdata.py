"""Default loadouts read from the real BSData catalogues.

Every expected value was read in the XML first (file and line of the unit entry in each test).
"""

from __future__ import annotations

import pytest

from tests.loadouts.conftest import Loadouts

SM = "Imperium - Space Marines.cat"


@pytest.mark.parametrize("models", [5, 10])
def test_intercessor_squad(bsdata_loadouts: Loadouts, models: int) -> None:
    """Space Marines.cat:4343. The Sergeant (own statline) has the group defaults Bolt Rifle (link fd17,
    walked first inside `Bolt Rifle w/ Grenade Launcher`) and Close combat weapon, and Bolt pistol (min 1);
    each Intercessor (statline `Intercessor Squad`, 4-9) Close combat weapon, Bolt pistol, Bolt Rifle."""
    weapons = {"Bolt Rifle": 1, "Close combat weapon": 1, "Bolt pistol": 1}
    option = bsdata_loadouts.option(bsdata_loadouts.sheet(SM, "Intercessor Squad"), models)
    assert option == {
        "Intercessor Sergeant": {"profile": "Intercessor Sergeant", "count": 1, "order": 2, "weapons": weapons},
        "Intercessor": {"profile": "Intercessor Squad", "count": models - 1, "order": 1, "weapons": weapons},
    }


def test_tankbustas_boss_nob_fills_its_choice_of_two(bsdata_loadouts: Loadouts) -> None:
    """Orks.cat:12002: `Wargear Options` (2 of 2, default id naming nothing) holds Smash hammer (max 1) and
    Rokkit pistol (min 1, max 2): two rokkit pistols. The group `Tankbustas` defaults to `Tankbusta w/ Rokkit
    launcha` (4-5)."""
    option = bsdata_loadouts.option(bsdata_loadouts.sheet("Orks.cat", "Tankbustas"), 6)
    assert {g: (o["count"], o["weapons"]) for g, o in option.items()} == {
        "Boss Nob": (1, {"Rokkit pistol": 2, "Choppa": 1}),
        "Tankbusta w/ Rokkit launcha": (5, {"Rokkit launcha": 1, "Close combat weapon": 1}),
    }


def test_vehicle(bsdata_loadouts: Loadouts) -> None:
    """Astra Militarum - Library.cat:7452: the model entry is the unit; battle cannon and armoured tracks
    (min 1), and the lascannon, default of the group `Lascannon` in the shared `Wargear Options` (:39555)."""
    option = bsdata_loadouts.option(
        bsdata_loadouts.sheet("Imperium - Astra Militarum.cat", "Leman Russ Battle Tank"), 1
    )
    assert option["Leman Russ Battle Tank"]["weapons"] == {
        "Lascannon": 1, "Leman Russ battle cannon": 1, "Armoured tracks": 1,
    }  # fmt: skip


def test_basilisk_heavy_bolter_by_the_group_name(bsdata_loadouts: Loadouts) -> None:
    """Astra Militarum - Library.cat:39663: group `Heavy Bolter` (1 of 1), its default id names nothing;
    the member it is named after is the Heavy bolter."""
    option = bsdata_loadouts.option(bsdata_loadouts.sheet("Imperium - Astra Militarum.cat", "Basilisk"), 1)
    assert option["Basilisk"]["weapons"] == {"Earthshaker cannon": 1, "Armoured tracks": 1, "Heavy bolter": 1}


def test_character(bsdata_loadouts: Loadouts) -> None:
    """Space Marines.cat:29117: group `Wargear` (1 of 1) defaults to the package `Bolt Pistol, Master-crafted
    Bolter, Melee Weapon`: bolt pistol and bolter (min 1), its `Melee Weapon` group's default close combat
    weapon."""
    option = bsdata_loadouts.option(bsdata_loadouts.sheet(SM, "Captain"), 1)
    assert option["Captain"]["weapons"] == {"Close combat weapon": 1, "Bolt pistol": 1, "Master-crafted bolter": 1}


def test_multi_profile_weapon_rows_share_their_weapon(bsdata_loadouts: Loadouts) -> None:
    """Chaos Space Marines.cat:4695 Chaos Lord: the `Plasma pistol` entry (:27868) holds
    `➤ Plasma pistol - standard` and `- supercharge`."""
    sheet = bsdata_loadouts.sheet("Chaos - Chaos Space Marines.cat", "Chaos Lord")
    plasma = [r for r in bsdata_loadouts.rows[sheet] if r.profile_group == "Plasma pistol"]
    names = sorted(bsdata_loadouts.weapon_names[r.weapon_id] for r in plasma)
    assert names == ["Plasma pistol - standard", "Plasma pistol - supercharge"]
    assert {(r.per_model, r.model_count) for r in plasma} == {(1, 1)}


def test_catachan_default_member_fills_its_group(bsdata_loadouts: Loadouts) -> None:
    """Astra Militarum - Library.cat:2935: `9 Jungle Fighters` defaults to `Jungle Fighter` (6-9); its
    points composition holds a vox-caster and a flamer trooper instead."""
    option = bsdata_loadouts.option(
        bsdata_loadouts.sheet("Imperium - Astra Militarum.cat", "Catachan Jungle Fighters"), 10
    )
    assert {g: o["count"] for g, o in option.items()} == {"Jungle Fighter Sergeant": 1, "Jungle Fighter": 9}


@pytest.mark.parametrize(
    ("file_name", "unit", "reason"),
    [
        (SM, "Hellblaster Squad", "required weapon choice without a default"),  # Sergeant's `Pistol Option`
        ("Imperium - Astra Militarum.cat", "Baneblade", "required weapon choice whose default id names nothing"),
        ("Chaos - Chaos Space Marines.cat", "Exalted Champion [Crucible]", "required weapon choice without a default"),
        ("Warhammer 40,000.gst", "Greater Daemon (Unbound Adversaries)", "no points option"),
    ],
)
def test_unresolved_units(bsdata_loadouts: Loadouts, file_name: str, unit: str, reason: str) -> None:
    sheet = bsdata_loadouts.sheet(file_name, unit)
    assert (reason, "unresolved") in bsdata_loadouts.reasons(sheet)
    assert sheet not in bsdata_loadouts.rows


def test_resolution_rate(bsdata_loadouts: Loadouts) -> None:
    rate = bsdata_loadouts.report.by_format["bsdata"]
    assert (rate.datasheets, rate.resolved) == (1092, 999)
