"""Faction documents: file names never collide, cards nest their golden rows and sources."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.errors import PublishError
from pipeline.publish.factions import (
    faction_document,
    faction_file_names,
    faction_frames,
    lookups,
    rule_for,
    shared_lookups,
)
from pipeline.reconcile.factions import NO_FACTION_NAME

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


def test_documents_built_per_faction_equal_those_built_from_every_row(release: Path) -> None:
    """Each faction's cards read only its slice of the tables (`faction_frames`): the slice must hold every row
    a card reads, so the document is the one built from whole tables (checked on every faction of the real
    release; a table missing from `BY_UNIT` or `BY_DATASHEET` empties some cards' lists)."""
    frames = {p.stem: pl.read_parquet(p) for p in release.glob("*.parquet")}
    shared, whole = shared_lookups(frames), lookups(frames)
    units = frames["units"].to_dicts()
    factions = sorted({u["faction"] for u in units} - {NO_FACTION_NAME})
    assert len(factions) >= 20
    full = 0  # cards with every kind of row a slice must carry: the comparison is not of empty lists
    for faction in factions:
        members = [u for u in units if u["faction"] == faction]
        sliced = lookups(faction_frames(frames, [u["unit_id"] for u in members]), shared)
        document = faction_document(faction, members, whole)
        assert faction_document(faction, members, sliced) == document, faction
        full += sum(
            bool(c["weapons"] and c["unit_points"] and c["stratagem_ids"] and c["sources"]) for c in document["units"]
        )
    assert full > 100
