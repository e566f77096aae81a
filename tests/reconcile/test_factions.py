"""Legends status, faction keys, copies: which datasheets are one unit and which stay apart."""

from __future__ import annotations

import pytest

from pipeline.reconcile.factions import NO_FACTION, catalogue_display, display_names
from pipeline.reconcile.keys import legend_tag
from pipeline.reconcile.matching import preferred_key, resolve_units
from schemas.records import Record
from tests.reconcile.builders import golden_of, keywords, members, sheet, statline, weapon

LEGENDS_AM = "Datasheet: Legends: Astra Militarum"


def _units(*records: Record) -> dict[frozenset[str], str]:
    return {frozenset(m.datasheet_id for m in u.members): u.unit_id for u in resolve_units(members(*records))}


@pytest.mark.parametrize(
    ("name", "book", "tag"),
    [
        ("Malcador [Legends]", None, "Legends"),
        ("Exalted Champion [Crucible]", None, "Crucible"),
        ("Hell's Last [Legends] [Crucible]", None, "Crucible"),
        ("Malcador", "Datasheet: Legends: Astra Militarum", "Legends"),
        ("Sicaran", "Datasheet: Horus Heresy Legends: Adeptus Astartes", "Legends"),
        ("Baneblade", "Codex: Astra Militarum v1.3", None),
        ("Legendary Hero [Elite]", None, None),
    ],
)
def test_legend_status(name: str, book: str | None, tag: str | None) -> None:
    assert legend_tag(name, book) == tag


def test_legends_and_current_datasheets_of_one_name_are_two_units() -> None:
    current = sheet("bsdata", "Space Wolves", "Wolf Scouts", source_id="bsdata:Imperium - Space Wolves.cat")
    legends = sheet("bsdata", "Space Wolves", "Wolf Scouts [Legends]", source_id="bsdata:Imperium - Space Wolves.cat")
    wh = sheet("wahapedia_csv", "Space Marines", "Wolf Scouts", book="Datasheet: Legends: Space Wolves")
    assert _units(current, legends, wh) == {
        frozenset({current.datasheet_id}): "unit:space-marines:wolf-scouts",
        frozenset({legends.datasheet_id, wh.datasheet_id}): "unit:space-marines:wolf-scouts-legends",
    }


def test_crucible_and_legends_of_one_name_are_two_units() -> None:
    one = sheet(
        "bsdata", "Heretic Astartes", "Exalted Champion [Legends]", source_id="bsdata:Chaos - Chaos Space Marines.cat"
    )
    other = sheet(
        "bsdata", "Heretic Astartes", "Exalted Champion [Crucible]", source_id="bsdata:Chaos - Chaos Space Marines.cat"
    )
    assert set(_units(one, other).values()) == {
        "unit:chaos-space-marines:exalted-champion-legends",
        "unit:chaos-space-marines:exalted-champion-crucible",
    }


def test_a_sub_faction_catalogue_is_filed_under_the_faction_its_keywords_name() -> None:
    """Every entry of the Ultramarines catalogue is ADEPTUS ASTARTES, a faction of BSData (the
    Space Marines catalogue): no alias names Ultramarines, yet its units match Wahapedia's."""
    um_cat, sm_cat = "bsdata:Imperium - Ultramarines.cat", "bsdata:Imperium - Space Marines.cat"
    calgar = sheet("bsdata", "Ultramarines", "Marneus Calgar", source_id=um_cat)
    captain = sheet("bsdata", "Adeptus Astartes", "Captain", source_id=sm_cat)
    wh = sheet("wahapedia_csv", "Space Marines", "Marneus Calgar")
    records = [calgar, captain, wh, *keywords(calgar, "Adeptus Astartes", "Ultramarines"),
               *keywords(captain, "Adeptus Astartes"), *keywords(wh, "Adeptus Astartes", "Ultramarines")]  # fmt: skip
    units = _units(*records)
    assert units[frozenset({calgar.datasheet_id, wh.datasheet_id})] == "unit:space-marines:marneus-calgar"
    assert _units(calgar, captain, *records[3:6]) == {
        frozenset({calgar.datasheet_id}): "unit:space-marines:marneus-calgar",
        frozenset({captain.datasheet_id}): "unit:space-marines:captain",
    }


def test_the_game_systems_units_have_no_faction() -> None:
    gst = sheet("bsdata", "Warhammer 40,000 10th Edition", "Greater Daemon (Unbound Adversaries)",
                source_id="bsdata:Warhammer 40,000.gst")  # fmt: skip
    assert _units(gst) == {frozenset({gst.datasheet_id}): "unit:no-faction:greater-daemon-unbound-adversaries"}
    assert display_names([(NO_FACTION, "Warhammer 40,000 10th Edition")])[NO_FACTION] == "No faction"


def test_disjoint_faction_keywords_keep_same_named_units_apart() -> None:
    """Traitor and loyalist Warlord Titans: no faction in common, no match by name alone."""
    bs = sheet("bsdata", "Titanicus Traitoris", "Warlord Titan", source_id="bsdata:Chaos - Titanicus Traitoris.cat")
    wh = sheet("wahapedia_csv", "Adeptus Titanicus", "Warlord Titan")
    records = [bs, wh, *keywords(bs, "Titanicus Traitoris"), *keywords(wh, "Adeptus Titanicus")]
    assert len(_units(*records)) == 2
    assert len(_units(bs, wh)) == 1  # no keywords: the name alone decides, as before


def test_names_spelled_alike_within_a_faction() -> None:
    bs = sheet(
        "bsdata", "Adeptus Astartes", "Ancient in Terminator Armor", source_id="bsdata:Imperium - Space Marines.cat"
    )
    wh = sheet("wahapedia_csv", "Space Marines", "Ancient In Terminator Armour")
    assert _units(bs, wh) == {frozenset({bs.datasheet_id, wh.datasheet_id}): (
        "unit:space-marines:ancient-in-terminator-armour")}  # fmt: skip


def test_the_kept_key_does_not_depend_on_the_sources() -> None:
    assert preferred_key([("x", "hellblade", ""), ("x", "hell blade", "")]) == ("x", "hell blade", "")
    assert preferred_key([("x", "piranha", ""), ("x", "piranhas", "")]) == ("x", "piranhas", "")


def test_a_copy_inherits_its_home_datasheets_weapons_and_stays_its_factions_unit() -> None:
    """Wahapedia's Genestealer Cults Baneblade: same name and publication as the Astra Militarum
    one, no wargear rows of its own."""
    home = sheet("wahapedia_csv", "Astra Militarum", "Baneblade", book="Codex: Astra Militarum v1.3")
    copy = sheet("wahapedia_csv", "Genestealer Cults", "Baneblade", book="Codex: Astra Militarum v1.3")
    cannon = weapon(home, "Baneblade cannon", strength=18)
    found = members(home, copy, cannon, statline(home, toughness=13), statline(copy, toughness=13))
    by_id = {m.datasheet_id: m for m in found}
    assert (by_id[copy.datasheet_id].copy_of, by_id[home.datasheet_id].copy_of) == (home.datasheet_id, None)
    units = {u.unit_id: u for u in resolve_units(found)}
    assert sorted(units) == ["unit:astra-militarum:baneblade", "unit:genestealer-cults:baneblade"]
    (row,) = golden_of([by_id[copy.datasheet_id]]).weapons
    assert (row.unit_id, row.weapon_id, row.datasheet_id, row.inherited_from) == (
        "unit:genestealer-cults:baneblade", cannon.weapon_id, home.datasheet_id, home.datasheet_id)  # fmt: skip


def test_weaponless_twins_name_their_home_by_the_publication() -> None:
    home = sheet("wahapedia_csv", "Astra Militarum", "Aegis Defence Line", book="Codex: Astra Militarum v1.3")
    copy = sheet("wahapedia_csv", "Genestealer Cults", "Aegis Defence Line", book="Codex: Astra Militarum v1.3")
    other = sheet("wahapedia_csv", "Orks", "Mekboy Workshop", book="Datasheet: Legends: Orks")
    copies = {m.datasheet_id: m.copy_of for m in members(home, copy, other)}
    assert copies == {home.datasheet_id: None, copy.datasheet_id: home.datasheet_id, other.datasheet_id: None}


def test_catalogue_display_names() -> None:
    assert catalogue_display("Chaos - Chaos Knights") == "Chaos Knights"
    assert catalogue_display("Imperium - Astra Militarum - Library") == "Astra Militarum"
    assert display_names([("tau empire", "T’au Empire"), ("tau empire", "T'au Empire")])["tau empire"] == "T'au Empire"
