"""Weapon matching within a unit: shortened, prefixed, misspelt names match; different weapons don't."""

from __future__ import annotations

import pytest

from pipeline.reconcile.weapons import weapon_clusters, weapon_labels
from schemas.records import Record
from tests.reconcile.builders import members, sheet, weapon


def _pairs(unit: str, bs_weapons: list[tuple[str, str]], page_weapons: list[tuple[str, str]]) -> set[frozenset[str]]:
    """Names clustered together (each pair of a BSData and a page-export weapon)."""
    bs = sheet("bsdata", "World Eaters", unit)
    page = sheet("page_export", "World Eaters", unit)
    records: list[Record] = [bs, page]
    records += [weapon(bs, name, kind) for name, kind in bs_weapons]
    records += [weapon(page, name, kind) for name, kind in page_weapons]
    clusters = weapon_clusters(members(*records))
    return {frozenset(i.name for i in c.items) for c in clusters if len(c.entries) == 2}


@pytest.mark.parametrize(
    ("unit", "short", "long"),
    [
        ("Lord Invocatus", "Bladed horn", "Juggernaut’s bladed horn"),  # possessive prefix (the page export)
        ("Termagants", "Spinefists", "Termagant spinefists"),  # prefixed with the model's name
        ("Boss", "Heavy plasma axe", "Heavy plasma axe - sweep"),  # a single mode
        ("Great Knarloc", "Kroot rifle", "Kroot rifle (melee)"),
        ("Norn Assimilator", "Toxinjecter harpoon", "Toxinjector harpoon"),  # a typo
        ("Trukk", "Spiked wheel", "Spiked wheels"),
        ("Sun Shark Bomber", "Twin ion rifle - overcharged", "Twin ion rifle – overcharge"),
    ],
)
def test_same_weapon_differently_named(unit: str, short: str, long: str) -> None:
    kind = "melee" if "(melee)" in long or "horn" in long or "axe" in long or "wheel" in long else "ranged"
    assert _pairs(unit, [(short, kind)], [(long, kind)]) == {frozenset({short, long})}


@pytest.mark.parametrize(
    ("unit", "one", "other"),
    [
        ("Longstrike", "Smart missile system", "Twin smart missile system"),  # twin: another profile
        ("Boyz", "Shoota", "Kustom shoota"),  # a qualifier that is not a possessive or a model name
        ("Boyz", "Bolt pistol", "Heavy bolt pistol"),
    ],
)
def test_different_weapons_stay_apart(unit: str, one: str, other: str) -> None:
    assert _pairs(unit, [(one, "ranged")], [(other, "ranged")]) == set()


def test_ambiguous_shortening_is_left_unmatched() -> None:
    """One `Heavy plasma axe` against two modes: guessing would compare the wrong profile."""
    pairs = _pairs("Berserks", [("Heavy plasma axe", "melee")],
                   [("Heavy plasma axe - sweep", "melee"), ("Heavy plasma axe - strike", "melee")])  # fmt: skip
    assert pairs == set()


def test_kind_must_match_and_labels_say_it() -> None:
    bs = sheet("bsdata", "T'au Empire", "Kroot Carnivores")
    page = sheet("page_export", "T’au Empire", "Kroot Carnivores")
    records = [bs, page, weapon(bs, "Kroot rifle", "ranged"), weapon(bs, "Kroot rifle", "melee"),
               weapon(page, "Kroot rifle", "melee", attacks="3")]  # fmt: skip
    clusters = weapon_clusters(members(*records))
    matched = [c for c in clusters if len(c.entries) == 2]
    assert [c.kind for c in matched] == ["melee"]
    assert sorted(weapon_labels(clusters)) == ["Kroot rifle (melee)", "Kroot rifle (ranged)"]
