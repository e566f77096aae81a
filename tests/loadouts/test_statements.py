"""Loadout statements read from text: the export's phrasings and built ones it does not have."""

from __future__ import annotations

import pytest

from pipeline.loadouts.statements import Subject, parse_subject, statements


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("This model is equipped with: bolt pistol; chainsword.", [(Subject(()), ("bolt pistol", "chainsword"))]),
        ("Every model is equipped with: guardian spear.", [(Subject(()), ("guardian spear",))]),
        ("Each model is equipped with: hideous mutations.", [(Subject(()), ("hideous mutations",))]),
        ("This unit is equipped with: nothing.", [(Subject(()), ())]),
        (
            "The Sergeant is equipped with: plasma pistol; power fist.\n"
            "Every Intercessor is equipped with: bolt rifle.",
            [(Subject(("Sergeant",)), ("plasma pistol", "power fist")), (Subject(("Intercessor",)), ("bolt rifle",))],
        ),
        (
            "The Master of Ordnance and Officer of the Fleet are both equipped with: laspistol.",
            [(Subject(("Master of Ordnance", "Officer of the Fleet")), ("laspistol",))],
        ),
        ("2 Havocs are equipped with: Havoc autocannon.", [(Subject(("Havocs",), 2), ("Havoc autocannon",))]),
        ("One other E-COG is equipped with: volkite.", [(Subject(("E-COG",), 1, True), ("volkite",))]),
        ("Every other model is equipped with: bolt pistol.", [(Subject((), None, True), ("bolt pistol",))]),
        ("Every Grenadier model is equipped with: lasgun.", [(Subject(("Grenadier",)), ("lasgun",))]),
        # Wahapedia puts the first item inside the bold label: the text reads the same
        (
            "Every Death Korps Trooper is equipped with: lasgun; close combat weapon.",
            [(Subject(("Death Korps Trooper",)), ("lasgun", "close combat weapon"))],
        ),
        # built: no colon, no final stop, two statements on one line, a whole-unit phrase with a tail
        ("Every Clawed Fiend is equipped with savage claws", [(Subject(("Clawed Fiend",)), ("savage claws",))]),
        (
            "The Nob is equipped with: choppa. Every Boy is equipped with: slugga; choppa.",
            [(Subject(("Nob",)), ("choppa",)), (Subject(("Boy",)), ("slugga", "choppa"))],
        ),
        ("All models in this unit are equipped with: combat knife.", [(Subject(()), ("combat knife",))]),
        (
            "* Footnote.\nThe Grimnyr is equipped with: ancestral ward stave.",
            [(Subject(("Grimnyr",)), ("ancestral ward stave",))],
        ),
    ],
)
def test_statements_and_their_subjects(text: str, expected: list[tuple[Subject, tuple[str, ...]]]) -> None:
    assert [(s.subject, s.items) for s in statements(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "This model can be equipped with 1 Tidewall defence platform",
        "Designer’s Note: Place five Heavy Artillery Crew tokens next to each model.",
        "",
    ],
)
def test_options_and_notes_are_no_statements(text: str) -> None:
    assert statements(text) == []


def test_additionally_adds_to_what_the_models_carry() -> None:
    said = statements("Every model is equipped with: bolter.\nThe Theyn is additionally equipped with: crest.")
    assert [s.additional for s in said] == [False, True]


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("The 1 Long-quill", Subject(("Long-quill",), 1)),
        ("1 other Cadian Veteran Guardsman", Subject(("Cadian Veteran Guardsman",), 1, True)),
        ("Every other Nightmare Hulk", Subject(("Nightmare Hulk",), None, True)),
        ("The Biker Sergeant and every Space Marine Biker", Subject(("Biker Sergeant", "Space Marine Biker"))),
        ("A Shade Runner", Subject(("Shade Runner",), 1)),
        ("The Serberys Sulphurhound Alpha model", Subject(("Serberys Sulphurhound Alpha",))),
    ],
)
def test_subjects(subject: str, expected: Subject) -> None:
    assert parse_subject(subject) == expected
