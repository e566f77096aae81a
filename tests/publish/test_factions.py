"""Faction documents: file names never collide, cards nest their golden rows and sources."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.errors import PublishError
from pipeline.publish.factions import (
    BY_DATASHEET,
    BY_UNIT,
    faction_document,
    faction_file_names,
    frames_by_faction,
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
    """Each faction's cards read only its slice of the tables (`frames_by_faction`): the slice must hold every row
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
        sliced = lookups(frames_by_faction(frames, {faction: [u["unit_id"] for u in members]})[faction], shared)
        document = faction_document(faction, members, whole)
        assert faction_document(faction, members, sliced) == document, faction
        full += sum(
            bool(c["weapons"] and c["unit_points"] and c["stratagem_ids"] and c["sources"]) for c in document["units"]
        )
    assert full > 100


def _filtered(frames: dict[str, pl.DataFrame], unit_ids: list[str]) -> dict[str, pl.DataFrame]:
    """A faction's slices by plain filters: its units' rows, then the rows of their datasheets."""
    sliced = {t: frames[t].filter(pl.col("unit_id").is_in(unit_ids)) for t in BY_UNIT}
    sheets = sliced["datasheets"]["datasheet_id"].to_list()
    return {**sliced, **{t: frames[t].filter(pl.col("datasheet_id").is_in(sheets)) for t in BY_DATASHEET}}


def test_every_faction_sliced_at_once_equals_each_filtered(release: Path) -> None:
    """`frames_by_faction` (each table joined to its rows' faction and split once) gives each faction the rows,
    order and columns that filtering every table by the faction's units gives, on every faction of the real
    release."""
    frames = {p.stem: pl.read_parquet(p) for p in release.glob("*.parquet")}
    units = frames["units"].filter(pl.col("faction") != NO_FACTION_NAME)
    ids = {f: units.filter(pl.col("faction") == f)["unit_id"].to_list() for f in sorted(set(units["faction"]))}
    together = frames_by_faction(frames, ids)
    assert list(together) == list(ids)
    rows = 0
    for faction, unit_ids in ids.items():
        alone = _filtered(frames, unit_ids)
        assert set(together[faction]) == set(alone)
        for table, frame in alone.items():
            assert together[faction][table].equals(frame), (faction, table)
            assert together[faction][table].schema == frame.schema
            rows += frame.height
    assert rows > 100_000  # damage_vs_reference's rows among them: not a comparison of empty frames
