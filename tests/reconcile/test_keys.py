"""Match keys: spellings the real sources use for the same name or faction compare equal."""

from __future__ import annotations

import pytest

from pipeline.reconcile.keys import catalogue_faction, display_name, faction_key, name_key, singular_key, weapon_words


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("‘Iron Hand’ Straken", "Iron Hand’ Straken [Legends]"),  # Wahapedia vs BSData parser output
        ("Big Mek With Kustom Force Field", "Big Mek with Kustom Force Field [Legends]"),
        ("Tx42 Piranha", "TX42 Piranha"),
        ("Kâhl", "Kahl"),
        ("Hot-shot long-las", "Hot-shot long las"),
        ("Hell’s Last", "Hell's Last [Legends]"),
        ("Coward’s Bane", "Coward's Bane"),
        ("Plasma pistol – supercharge", "Plasma pistol - supercharge"),
    ],
)
def test_same_name_same_key(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [("Malcador", "Malcador Annihilator"), ("Lord", "Lokhust Lord"), ("Piranha", "Piranhas")],
)
def test_different_names_different_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Chaos - World Eaters", "World Eaters"),
        ("Xenos - T'au Empire", "T’au Empire"),
        ("Imperium - Astra Militarum - Library", "Astra Militarum"),
        ("Chaos - Daemons Library", "Chaos Daemons"),
        ("Imperium - Agents of the Imperium", "Imperial Agents"),
        ("Aeldari - Craftworlds", "Aeldari"),
        ("Library - Tyranids", "Tyranids"),
        ("Emperor’s Children", "Emperor's Children"),
    ],
)
def test_faction_spellings_across_sources(one: str, other: str) -> None:
    assert faction_key(one) == faction_key(other)


def test_distinct_chaos_factions_stay_distinct() -> None:
    assert len({faction_key(f) for f in ("Chaos Space Marines", "Chaos Daemons", "Chaos Knights", "Aeldari")}) == 4


def test_catalogue_faction_only_for_bsdata_catalogues() -> None:
    assert catalogue_faction("bsdata:Chaos - World Eaters.cat") == "Chaos - World Eaters"
    assert catalogue_faction("bsdata:Warhammer 40,000.gst") is None
    assert catalogue_faction("wahapedia_csv:Datasheets.csv") is None


def test_singular_and_display() -> None:
    assert singular_key(name_key("Piranhas")) == singular_key(name_key("Piranha"))
    assert singular_key("crisis battlesuits") == singular_key("crisis battlesuit")
    assert singular_key("khorne berzerkers") != singular_key("khorne berzerker lord")
    assert display_name("Hellblade [Legends]") == "Hellblade"
    assert weapon_words("Kroot rifle (melee)") == ("kroot", "rifle")
