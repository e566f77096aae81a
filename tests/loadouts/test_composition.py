"""Which models a points option holds: composition lines of the export and built ones."""

from __future__ import annotations

import pytest

from pipeline.loadouts.composition import Part, alternatives, clean_line, option_parts, parse_parts


@pytest.mark.parametrize(
    ("lines", "description", "models", "expected"),
    [
        # Intercessor Squad (000001157)
        (
            ["1 Intercessor Sergeant", "4-9 Intercessors"],
            "10 models",
            10,
            [("Intercessor Sergeant", 1), ("Intercessors", 9)],
        ),
        # Gretchin (000000017): two compositions separated by OR
        (
            ["1 Runtherd and 10 Gretchin", "OR", "2 Runtherds and 20 Gretchin"],
            "22 models",
            22,
            [("Runtherds", 2), ("Gretchin", 20)],
        ),
        # Death Korps Grenadier Squad (000002374): the first of `One of the following:` that fits
        (
            [
                "One of the following:",
                "1 Grenadier Sergeant and 9 Grenadiers",
                "1 Grenadier Sergeant, 7 Grenadiers and 1 Heavy Weapons Team",
            ],
            "10 models",
            10,
            [("Grenadier Sergeant", 1), ("Grenadiers", 9)],
        ),
        # Proteus Kill Team (000003824): a cap line is no model
        (
            ["10 MODELS MAXIMUM", "5-10 Kill Team Veterans", "0-4 Kill Team Veterans with Jump Packs"],
            "5 models",
            5,
            [("Kill Team Veterans", 5), ("Kill Team Veterans with Jump Packs", 0)],
        ),
        # Corsair Voidscarred (000002532): the rest goes to the roomiest range
        (
            [
                "This unit can contain a maximum of 10 models.",
                "1 Voidscarred Felarch",
                "4-9 Corsair Voidscarred",
                "0-1 Shade Runner",
            ],
            "10 models",
            10,
            [("Voidscarred Felarch", 1), ("Corsair Voidscarred", 9), ("Shade Runner", 0)],
        ),
        # Aegis Defence Line (000002811): a note in brackets
        (
            [
                "1 Aegis Defence Line with Weapon Emplacement (4 large shield sections, 4 small shield sections and "
                "1 gun emplacement)"
            ],
            "1 model",
            1,
            [("Aegis Defence Line with Weapon Emplacement", 1)],
        ),
        # Tarantula Sentry Battery (000000098): one kind of model, options of 1-3
        (["1 Tarantula Sentry Battery"], "3 models", 3, [("Tarantula Sentry Battery", 3)]),
        # Crusader Squad (000002799): the option names its models
        (
            ["1 Sword Brother", "4-9 Initiates", "0-10 Neophytes"],
            "1 Sword Brother, 4 Initiates and 5 Neophytes",
            10,
            [("Sword Brother", 1), ("Initiates", 4), ("Neophytes", 5)],
        ),
        # built: overflow to the next roomiest range
        (["2-3 Troopers", "0-2 Gunners"], "5 models", 5, [("Troopers", 3), ("Gunners", 2)]),
    ],
)
def test_option_parts(lines: list[str], description: str, models: int, expected: list[tuple[str, int]]) -> None:
    assert option_parts(lines, description, models) == expected


@pytest.mark.parametrize(
    ("lines", "models"),
    [
        (["1 Ogryn Pack Master", "3 Chaos Mauler Hounds"], 7),  # 000004059: 4 models in the lines, option of 7
        (["1 Sergeant", "4-9 Marines"], 4),  # built: below the minimum
        (["1 Sergeant", "4-9 Marines"], 11),  # built: above the maximum
    ],
)
def test_options_that_do_not_fit(lines: list[str], models: int) -> None:
    assert option_parts(lines, f"{models} models", models) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 Ghazghkull Thraka – EPIC HERO", "1 Ghazghkull Thraka"),
        ("1 Bjorn the Fell-Handed– EPIC HERO", "1 Bjorn the Fell-Handed"),
        ("8 Kill Team Veterans:\n• Vael Donatus\n• Zameon Gydrael", "8 Kill Team Veterans"),
        ("1 Astropath.", "1 Astropath"),
        ("0\u20114 Kill Team Intercessors with pyreblasters", "0-4 Kill Team Intercessors with pyreblasters"),
    ],
)
def test_clean_line(text: str, expected: str) -> None:
    assert clean_line(text) == expected


def test_a_name_holding_and_stays_one_part() -> None:
    assert parse_parts("1 Master of Ordnance and Officer of the Fleet") == (
        Part("Master of Ordnance and Officer of the Fleet", 1, 1),
    )


def test_alternatives_leave_out_lines_that_are_no_models() -> None:
    assert alternatives(["This unit can contain a maximum of 10 models.", "4-9 Corsair Voidscarred"]) == [
        (Part("Corsair Voidscarred", 4, 9),)
    ]
