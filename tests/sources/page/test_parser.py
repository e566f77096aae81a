"""Page-export parser on the three real seeds: the datasheet part, value by value.

Every expected value below was read off the seed files in raw/pages/ by hand.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pipeline.sources.page.parser import PageParse, parse, parse_page
from schemas.records import Record
from tests.conftest import AVENGER, INVOCATUS, WAZDAKKA

SEEDS = [WAZDAKKA, AVENGER, INVOCATUS]


@cache
def parsed(path: Path) -> PageParse:
    return parse_page(path)


def table(path: Path, name: str) -> list[Any]:
    return [r for r in parsed(path).records if name == r.TABLE]


# (name, kind, range, attacks, skill, strength, ap, damage, abilities) per seed, in file order.
WEAPONS = {
    WAZDAKKA: [
        ("Grabba dragga", "ranged", 12, "1", 2, "10", -2, "3", ["assault", "precision"]),
        ("Psyko-gatler", "ranged", 24, "12", 4, "6", -2, "2", ["assault", "sustained hits 1"]),
        ("Fixit’s wrench", "melee", None, "1", 4, "3", 0, "1", ["extra attacks"]),
        ("Grabba dragga", "melee", None, "6", 2, "10", -2, "3", ["lance"]),
        ("Speeding bulk and flaming exhaust", "melee", None, "6", 2, "5", -1, "1", ["extra attacks"]),
    ],
    AVENGER: [
        ("Avenger bolt cannon", "ranged", 36, "10", 4, "6", -1, "2", ["sustained hits 1"]),
        ("Heavy stubber", "ranged", 36, "3", 4, "4", 0, "1", ["rapid fire 3"]),
        ("Lascannon", "ranged", 48, "1", 4, "12", -3, "D6+1", []),
        ("Armoured hull", "melee", None, "6", 4, "8", 0, "1", []),
    ],
    INVOCATUS: [
        ("Bolt pistol", "ranged", 12, "1", 2, "4", 0, "1", ["pistol"]),
        ("Coward’s Bane", "melee", None, "7", 2, "6", -2, "2", ["devastating wounds"]),
        ("Juggernaut’s bladed horn", "melee", None, "4", 3, "6", -1, "2", ["extra attacks", "lance"]),
    ],
}

DATASHEETS = {
    WAZDAKKA: ("page:orks:wazdakka-gutsmek", "Orks", "Wazdakka Gutsmek"),
    AVENGER: ("page:astra-militarum:avenger-strike-fighter", "Astra Militarum", "Avenger Strike Fighter"),
    INVOCATUS: ("page:world-eaters:lord-invocatus", "World Eaters", "Lord Invocatus"),
}

# (name, kind, parameter) per seed, in file order.
ABILITIES = {
    WAZDAKKA: [
        ("THROTTLEROKKIT SHOKKA ENGINE", "special", None),
        ("Deadly Demise", "core", "D3"),
        ("Deep Strike", "core", None),
        ("Lone Operative", "core", None),
        ("Waaagh!", "faction", None),
        ("Fixit da Grot", "datasheet", None),
        ("Throttlerokkit Shokka Engine", "datasheet", None),
        ("WAAAGH! WAZDAKKA", "special", None),
    ],
    AVENGER: [
        ("Deadly Demise", "core", "D6"),
        ("Fiery Vengeance", "datasheet", None),
        ("Damaged", "damaged", "1-5"),
    ],
    INVOCATUS: [
        ("Leader", "core", None),
        ("Scouts", "core", '6"'),
        ("Blessings of Khorne", "faction", None),
        ("Counter-attacks", "datasheet", None),
        ("Road of Eight Bloody Steps", "datasheet", None),
        ("Leader", "leader", None),
    ],
}

KEYWORDS = {
    WAZDAKKA: (["MOUNTED", "VEHICLE", "SPEED FREEKS", "EPIC HERO", "SMOKE", "CHARACTER", "WAZDAKKA GUTSMEK"], ["ORKS"]),
    AVENGER: (["VEHICLE", "FLY", "AIRCRAFT", "IMPERIUM", "AVENGER STRIKE FIGHTER"], ["ASTRA MILITARUM"]),
    INVOCATUS: (
        ["MOUNTED", "CHARACTER", "EPIC HERO", "GRENADES", "CHAOS", "KHORNE", "LORD INVOCATUS"],
        ["WORLD EATERS"],
    ),
}

# (composition text, model name, points models, points cost)
COMPOSITION = {
    WAZDAKKA: ("1 Wazdakka Gutsmek – EPIC HERO", "Wazdakka Gutsmek", 1, 175),
    AVENGER: ("1 Avenger Strike Fighter", "Avenger Strike Fighter", 1, 130),
    INVOCATUS: ("1 Lord Invocatus – EPIC HERO", "Lord Invocatus", 1, 140),
}


def weapon_tuple(w: Any) -> tuple[Any, ...]:
    return (w.name, w.kind, w.range_inches, w.attacks.text, w.skill, w.strength.text, w.ap, w.damage.text, w.abilities)


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_every_weapon_value_by_value(path: Path) -> None:
    assert [weapon_tuple(w) for w in table(path, "weapons")] == WEAPONS[path]


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_weapon_ids_distinct_and_typed_abilities_match(path: Path) -> None:
    weapons = table(path, "weapons")
    assert len({w.weapon_id for w in weapons}) == len(weapons)
    rows = table(path, "weapon_abilities")
    assert len(rows) == sum(len(w.abilities) for w in weapons)
    for weapon in weapons:
        assert [a.normalised for a in weapon.typed_abilities] == weapon.abilities
        assert weapon.weapon_id.startswith(f"{DATASHEETS[path][0]}:{weapon.kind}:")


def test_same_name_ranged_and_melee_profiles_are_two_weapons() -> None:
    grabba = [w for w in table(WAZDAKKA, "weapons") if w.name == "Grabba dragga"]
    assert {w.weapon_id for w in grabba} == {
        "page:orks:wazdakka-gutsmek:ranged:grabba-dragga",
        "page:orks:wazdakka-gutsmek:melee:grabba-dragga",
    }


def test_glued_abilities_are_typed() -> None:
    gatler = next(w for w in table(WAZDAKKA, "weapons") if w.name == "Psyko-gatler")
    assert [a.row() for a in gatler.typed_abilities] == [
        {"ability": "assault", "value": None, "keyword": None, "raw": "assault"},
        {"ability": "sustained_hits", "value": "1", "keyword": None, "raw": "sustained hits 1"},
    ]


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_datasheet_from_header(path: Path) -> None:
    (sheet,) = table(path, "datasheets")
    assert (sheet.datasheet_id, sheet.faction, sheet.name, sheet.role) == (*DATASHEETS[path], None)


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_abilities_with_parameters_and_kinds(path: Path) -> None:
    got = [(a.name, a.kind, a.parameter) for a in table(path, "abilities")]
    assert got == ABILITIES[path]


def test_named_abilities_glued_to_previous_sentence_are_split() -> None:
    texts = {a.name: a.text for a in table(WAZDAKKA, "abilities")}
    assert texts["Fixit da Grot"] == ("At the start of your Command phase, this model regains up to D3 lost wounds.")
    assert texts["Throttlerokkit Shokka Engine"].startswith("In your Command phase, select one of the")
    invocatus = {a.name: a.text for a in table(INVOCATUS, "abilities")}
    assert invocatus["Counter-attacks"].endswith("in a turn in which it Fell Back.")
    assert invocatus["Road of Eight Bloody Steps"].startswith("At the start of the battle, before any moves")


def test_unit_specific_section_keeps_its_named_abilities_and_bullets() -> None:
    section = next(a for a in table(WAZDAKKA, "abilities") if a.name == "THROTTLEROKKIT SHOKKA ENGINE")
    assert section.text is not None
    lines = section.text.split("\n")
    assert [line.split(":")[0] for line in lines[:3]] == ["Turbo Engine", "Shokk Attack Engine", "Pulse Jet"]
    assert lines[3:] == [
        '- Add 6" to the Move characteristic of models in this unit.',
        "- Models in this unit can move through models and terrain features.",
    ]
    empty = next(a for a in table(WAZDAKKA, "abilities") if a.name == "WAAAGH! WAZDAKKA")
    assert empty.text is None


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_composition_points_and_profiles(path: Path) -> None:
    text, model, models, cost = COMPOSITION[path]
    assert [c.text for c in table(path, "unit_composition")] == [text]
    assert [(p.models, p.cost) for p in table(path, "points")] == [(models, cost)]
    (profile,) = table(path, "model_profiles")
    assert (profile.name, profile.unit_size) == (model, 1)
    regular, faction = KEYWORDS[path]
    assert profile.keywords == regular + faction


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_profiles_have_no_statline_and_the_report_says_so(path: Path) -> None:
    (profile,) = table(path, "model_profiles")
    p = profile
    stats = (p.movement, p.toughness, p.save, p.wounds, p.leadership, p.oc)
    assert stats == (None,) * 6
    assert parsed(path).report.counts["profiles_without_statline"] == 1


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_keywords_and_faction_keywords_deduplicated(path: Path) -> None:
    regular, faction = KEYWORDS[path]
    rows = table(path, "keywords")
    assert [k.keyword for k in rows if not k.is_faction] == regular
    assert [k.keyword for k in rows if k.is_faction] == faction


def test_damaged_section() -> None:
    (sheet,) = table(AVENGER, "datasheets")
    assert sheet.damaged_w == "1-5"
    assert sheet.damaged_description == (
        "While this model has 1-5 wounds remaining, each time this model makes an attack, subtract 1 from the Hit roll."
    )


def test_leader_section() -> None:
    (sheet,) = table(INVOCATUS, "datasheets")
    assert sheet.leader_text == "This model can be attached to the following units:"
    assert "LEADER: the page lists no units this model can be attached to" in parsed(INVOCATUS).report.notes


@pytest.mark.parametrize("path", [AVENGER, INVOCATUS], ids=lambda p: p.name)
def test_wargear_none_gives_no_option_rows(path: Path) -> None:
    assert table(path, "wargear_options") == []
    assert "WARGEAR OPTIONS: None (no option rows)" in parsed(path).report.notes


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_parse_yields_source_first_with_file_identity(path: Path) -> None:
    records: list[Record] = list(parse(path))
    source = records[0]
    assert source.TABLE == "sources"
    assert source.source_id == f"page_export:{path.name}"
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()  # type: ignore[attr-defined]
    assert records[1].TABLE == "datasheets"


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_ids_are_stable_across_runs(path: Path) -> None:
    first = [r.model_dump() for r in parse_page(path).records]
    second = [r.model_dump() for r in parse_page(path).records]
    assert first == second
