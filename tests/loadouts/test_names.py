"""Name matching: plural forms and the stricter-first rules."""

from __future__ import annotations

import pytest

from pipeline.loadouts.names import PROFILE_CHANGING, best_match, key, stem


@pytest.mark.parametrize(
    ("plural", "single"),
    [
        ("voidsmen", "voidsman"),
        ("wolves", "wolf"),
        ("knives", "knife"),
        ("missionaries", "missionary"),
        ("heroes", "hero"),
        ("boyz", "boy"),
        ("bikers", "biker"),
        ("glaives", "glaive"),
    ],
)
def test_both_numbers_have_one_stem(plural: str, single: str) -> None:
    assert stem(plural) == stem(single)


@pytest.mark.parametrize("word", ["bike", "biker", "bolt", "cuirass"])
def test_different_words_keep_different_stems(word: str) -> None:
    others = {"bike": "biker", "biker": "bike", "bolt": "bolter", "cuirass": "cuiras"}
    assert stem(word) != stem(others[word])


def test_key_folds_quotes_case_and_plurals() -> None:
    assert key("Lesk’s Heroes") == key("lesk's hero")


@pytest.mark.parametrize(
    ("name", "candidates", "expected"),
    [
        ("Intercessor", ["Intercessor Sergeant", "Intercessors"], 1),  # equal key first
        ("Sergeant", ["Intercessor Sergeant", "Intercessors"], 0),  # words inside
        ("Kroot Farstalkers", ["Farstalkers & Kill-broker", "Kroot Hounds"], None),  # one word each: a tie
        ("Kroot Kill-broker", ["Farstalkers & Kill-broker", "Kroot Hounds"], 0),  # most words in common
    ],
)
def test_best_match(name: str, candidates: list[str], expected: int | None) -> None:
    assert best_match(name, candidates) == expected


def test_guard_words_make_another_weapon() -> None:
    assert best_match("twin lascannon", ["Lascannon"], overlap=False, guard=PROFILE_CHANGING) is None
    assert best_match("Deathwatch bolt rifle", ["Bolt rifle"], overlap=False, guard=PROFILE_CHANGING) == 0


def test_spelling_only_when_asked() -> None:
    assert best_match("master-crafted bolter", ["Master-crafted boltgun"], overlap=False) is None
    assert best_match("master-crafted bolter", ["Master-crafted boltgun"], overlap=False, spelling=True) == 0
