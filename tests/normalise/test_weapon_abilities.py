"""Weapon-ability tokens as the sources spell them -> the core vocabulary, raw text kept."""

from __future__ import annotations

import pytest

from pipeline.normalise.weapon_abilities import parse_ability_list, parse_weapon_ability


@pytest.mark.parametrize(
    ("raw", "normalised", "row"),
    [
        # BSData Orks / Tyranids weapon keywords (no `+`), and one without its hyphen
        ("Anti-fly 2", "anti-fly 2+", {"ability": "anti", "value": "2+", "keyword": "FLY"}),
        ("Anti-FLY 2", "anti-fly 2+", {"ability": "anti", "value": "2+", "keyword": "FLY"}),
        ("Anti Vehicle 3+", "anti-vehicle 3+", {"ability": "anti", "value": "3+", "keyword": "VEHICLE"}),
        ("anti - monster 4 +", "anti-monster 4+", {"ability": "anti", "value": "4+", "keyword": "MONSTER"}),
        ("Anti-Infantry 4+", "anti-infantry 4+", {"ability": "anti", "value": "4+", "keyword": "INFANTRY"}),
    ],
)
def test_anti_spellings_are_one_ability_with_the_raw_text_kept(raw: str, normalised: str, row: dict[str, str]) -> None:
    ability = parse_weapon_ability(raw)
    assert ability.normalised == normalised
    assert ability.row() == {**row, "raw": raw}


@pytest.mark.parametrize("raw", ["Antigrav 3", "anti 4+", "Anti-psyker 7+", "Sonic Devastation"])
def test_text_that_is_not_an_anti_ability_stays_other(raw: str) -> None:
    ability = parse_weapon_ability(raw)
    assert (ability.ability, ability.row()["raw"]) == ("other", raw)


def test_two_spellings_of_one_ability_in_a_cell_are_one_ability() -> None:
    assert [a.normalised for a in parse_ability_list("Anti-fly 2, anti-FLY 2+, Assault")] == ["anti-fly 2+", "assault"]
