"""Faction documents: file names never collide, cards nest their golden rows and sources."""

from __future__ import annotations

import re

import pytest

from pipeline.errors import PublishError
from pipeline.publish.factions import faction_file_names, rule_for

RULES = {
    "sustained hits": {"rule_id": "rule:1", "title": "Sustained Hits", "text": "..."},
    "anti": {"rule_id": "rule:2", "title": "Anti", "text": "..."},
    "twin linked": {"rule_id": "rule:3", "title": "Twin-linked", "text": "..."},
}


def test_faction_file_names_are_slugs_and_a_collision_is_an_error() -> None:
    assert faction_file_names(["T'au Empire", "World Eaters"]) == {
        "T'au Empire": "tau-empire.json",
        "World Eaters": "world-eaters.json",
    }
    with pytest.raises(PublishError, match=re.escape("tau-empire.json")):
        faction_file_names(["T'au Empire", "T’au Empire"])  # two display names: never an overwrite
    with pytest.raises(PublishError, match=re.escape("adeptus-custodes.json")):
        faction_file_names(["Adeptus Custodes", "Adeptus-Custodes!"])


@pytest.mark.parametrize(
    ("ability", "title"),
    [("sustained hits d3", "Sustained Hits"), ("anti-infantry 4+", "Anti"), ("twin-linked", "Twin-linked"),
     ("bubblechukka", None)],
)  # fmt: skip
def test_weapon_abilities_are_given_the_rule_of_their_name(ability: str, title: str | None) -> None:
    rule = rule_for(ability, RULES)
    assert (rule["title"] if rule else None) == title
