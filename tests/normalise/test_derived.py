"""FNP and damage reduction derived from ability text (sentences from Datasheets_abilities.csv)."""

from __future__ import annotations

import pytest

from pipeline.normalise.derived import (
    AbilityText,
    best_damage_reduction,
    best_fnp,
    damage_reduction_of,
    fnp_of,
)


def ability(name: str, text: str | None = None, kind: str = "datasheet", parameter: str | None = None) -> AbilityText:
    return AbilityText(name=name, kind=kind, parameter=parameter, text=text)


@pytest.mark.parametrize(
    ("given", "value"),
    [
        (ability("Feel No Pain", "Some models have ...", "core", "5+"), 5),  # core ability, parameter 5+
        (ability("Feel No Pain", None, "core", " 6+"), 6),  # parameter with a leading space (line 4636)
        (ability("Unyielding", "This model has the Feel No Pain 4+ ability."), 4),
        (ability("Hardy", "Models in this unit have the Feel No Pain 5+ ability"), 5),
        (ability("Curly", "Models in this unit have the Feel No Pain 5+ ability.".replace("'", "’")), 5),
    ],
)
def test_unconditional_fnp_is_derived(given: AbilityText, value: int) -> None:
    derived = fnp_of(given)
    assert derived is not None and derived.value == value


LEADING = "While this model is leading a unit, models in that unit have the Feel No Pain 5+ ability."
FORTRESS = (
    "Once per battle, at the start of any phase, this unit can use this ability. If it does, "
    "until the end of the phase, models in this unit have the Feel No Pain 4+ ability."
)


@pytest.mark.parametrize(
    "given",
    [
        # real conditional sentences: each would be wrong in most matchups
        ability("Unnatural Resilience", "This model has the Feel No Pain 4+ ability against mortal wounds."),
        ability("Dok’s Toolz", LEADING),
        ability("Nanoscarab Amulet", "The bearer has the Feel No Pain 5+ ability.", "wargear"),
        ability("Helix Gauntlet", "Models in the bearer’s unit have the Feel No Pain 6+ ability.", "wargear"),
        ability(
            "Remnant of the Fallen Temple",
            "Models in this unit have the Feel No Pain 5+ ability.",
            "primarch",
        ),
        ability("Feel No Pain", None, "core", None),  # no parameter, no value
        ability("Living Fortress", FORTRESS),
    ],
)
def test_conditional_fnp_is_not_derived(given: AbilityText) -> None:
    assert fnp_of(given) is None


def test_best_fnp_is_the_lowest_and_keeps_its_source() -> None:
    abilities = [
        ability("Feel No Pain", "rule text", "core", "6+"),
        ability("Iron Will", "This model has the Feel No Pain 4+ ability."),
        ability("Deep Strike", "rule text", "core"),
    ]
    best = best_fnp(abilities)
    assert best is not None
    assert (best.value, best.source) == (4, "Iron Will: This model has the Feel No Pain 4+ ability.")
    assert best_fnp([ability("Deep Strike", "rule text", "core")]) is None


def reduce(who: str, n: int = 1, end: str = ".") -> str:
    """The real sentence shape (Datasheets_abilities.csv, e.g. Armoured Resilience, line 351)."""
    return f"Each time an attack is allocated to {who}, subtract {n} from the Damage characteristic of that attack{end}"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (reduce("this model"), 1),
        (reduce("a model in this unit"), 1),
        (reduce("this FORTIFICATION"), 1),
        (reduce("this model", 2, end=""), 2),
    ],
)
def test_damage_reduction_is_derived(text: str, value: int) -> None:
    derived = damage_reduction_of(ability("Armoured Resilience", text))
    assert derived is not None
    assert derived.value == value and derived.source == f"Armoured Resilience: {text}"


HALVE = "Each time an attack is allocated to this model, halve the Damage characteristic of that attack."
COVER = (
    "Each time a ranged attack targets this model, if this model has the Benefit of Cover "
    "against that attack, subtract 1 from the Damage characteristic of that attack."
)
CHARGE = (
    "Each time a model in this unit makes a melee attack with its Wolf Guard weapon, "
    "if it made a Charge move this turn, add 1 to the Damage characteristic of that attack."
)


@pytest.mark.parametrize(
    "given",
    [
        ability("Necrodermis", HALVE),
        ability("Urban Warfare", COVER),
        ability("Guardian of the Lost", "While this model is leading a unit, " + reduce("a model in that unit")),
        ability("Scattershield", reduce("this model"), "wargear"),
        ability("Thunderous Charge", CHARGE),
    ],
)
def test_conditional_or_other_damage_changes_are_not_reduction(given: AbilityText) -> None:
    assert damage_reduction_of(given) is None


def test_best_damage_reduction_is_the_largest() -> None:
    best = best_damage_reduction([ability("A", reduce("this model")), ability("B", reduce("this model", 2))])
    assert best is not None and best.value == 2 and best.source.startswith("B: ")
