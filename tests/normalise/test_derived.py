"""FNP, damage reduction, halve damage and melee invulns derived from text (Datasheets_abilities.csv, .cat files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.dataset import Dataset
from pipeline.normalise.derived import (
    AbilityText,
    best_damage_reduction,
    best_fnp,
    damage_reduction_of,
    derive_defences,
    fnp_of,
    halve_damage_of,
    melee_invuln_of,
    with_derived_defences,
)
from pipeline.sources.registry import read_inputs
from schemas.records import Ability, ModelProfile


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


# --- halve damage --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        ability("Necrodermis", HALVE),  # C'tan Shards (Wahapedia 000000541)
        ability("Molten Form", HALVE.rstrip(".")),  # Avatar of Khaine (000000581), without the full stop
        ability("Formidably Resilient", HALVE.replace("this model", "a model in this unit")),
    ],
)
def test_unconditional_halve_damage_is_derived(given: AbilityText) -> None:
    assert halve_damage_of(given) == f"{given.name}: {given.text}"


@pytest.mark.parametrize(
    "given",
    [
        ability("Necrodermis", HALVE, "wargear"),  # a model may not take it
        ability("Aegis", "While this model is leading a unit, " + HALVE[0].lower() + HALVE[1:]),
        ability("Relics", "While this model has 1-6 wounds remaining, the Attacks characteristics are halved."),
        ability("Ward", reduce("this model")),  # subtracting is damage reduction, not halving
    ],
)
def test_conditional_or_other_halving_is_not_derived(given: AbilityText) -> None:
    assert halve_damage_of(given) is None


# --- a better invulnerable save in melee ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("note", "invuln", "melee"),
    [
        ("This invulnerable save is improved to 4+ against melee attacks.", 5, 4),  # Howling Banshees
        ("The invulnerable save that models in this unit have is improved to a 4+ against melee attacks.", 6, 4),
        ("4+ against melee attacks only", 6, 4),  # Ynnari Wyches
        ("This model has a 4+ invulnerable save against melee attacks.", 4, None),  # melee-only: a condition
        ("Against ranged attacks only", 5, None),
        ("4+ with Storm Shield (optional)", None, None),
        ("This invulnerable save is improved to 4+ against melee attacks.", None, None),  # nothing to improve
        ("This invulnerable save is improved to 4+ against melee attacks.", 4, None),  # not better
        (None, 5, None),
    ],
)
def test_melee_invuln_is_read_from_the_note(note: str | None, invuln: int | None, melee: int | None) -> None:
    assert melee_invuln_of(note, invuln) == melee


def profile(name: str = "Avatar of Khaine", **fields: Any) -> ModelProfile:
    base: dict[str, Any] = dict(profile_id="p", datasheet_id="ds", toughness=11, save=2, invuln=4, wounds=14)
    return ModelProfile(name=name, **{**base, **fields})


def record(name: str, text: str, kind: str = "datasheet", model: str | None = None) -> Ability:
    return Ability(datasheet_id="ds", name=name, kind=kind, text=text, model=model)


def test_derive_defences_sets_halve_damage_and_keeps_its_source() -> None:
    derived = derive_defences(profile(), [record("Deep Strike", "rule", "core"), record("Molten Form", HALVE)])
    assert (derived.halve_damage, derived.halve_damage_source) == (True, f"Molten Form: {HALVE}")
    assert derive_defences(profile(), [record("Molten Form", HALVE, "wargear")]).halve_damage is False


def test_an_ability_limited_to_one_model_applies_to_that_model_only() -> None:
    abilities = [record("Necrodermis", HALVE, model="Shard")]
    assert derive_defences(profile("Shard"), abilities).halve_damage is True
    assert derive_defences(profile("Tomb Blade"), abilities).halve_damage is False


def test_derive_defences_fills_a_melee_invuln_only_when_the_source_has_none() -> None:
    note = "This invulnerable save is improved to 4+ against melee attacks."
    assert derive_defences(profile(invuln=5, invuln_note=note), []).invuln_melee == 4
    assert derive_defences(profile(invuln=5, invuln_note=note, invuln_melee=3), []).invuln_melee == 3
    unchanged = profile()
    assert derive_defences(unchanged, []) is unchanged


def test_with_derived_defences_leaves_its_input_alone() -> None:
    dataset = Dataset([profile(), record("Molten Form", HALVE)])
    derived = with_derived_defences(dataset)
    assert [p.halve_damage for p in derived.records(ModelProfile)] == [True]
    assert [p.halve_damage for p in dataset.records(ModelProfile)] == [False]


@pytest.mark.slow
def test_every_source_derives_halve_damage_and_melee_invulns(wahapedia_dir: Path, bsdata_dir: Path) -> None:
    """The 8 Wahapedia datasheets with "halve the Damage characteristic" (Datasheets_abilities.csv) and the
    2 BSData units that carry the same sentence (Chaos Lord in Terminator Armour, Captain in Gravis Armour)."""
    profiles = read_inputs([wahapedia_dir, bsdata_dir]).dataset.records(ModelProfile)
    halved = {p.datasheet_id: p for p in profiles if p.halve_damage}
    assert sorted(k for k in halved if k.startswith("wh:")) == [
        "wh:000000541", "wh:000000542", "wh:000000555", "wh:000000581", "wh:000000930", "wh:000001172",
        "wh:000002357", "wh:000004037",
    ]  # fmt: skip
    assert sorted(p.name for k, p in halved.items() if k.startswith("bs:")) == [
        "Captain in Gravis Armour", "Chaos Lord in Terminator Armour",
    ]  # fmt: skip
    assert halved["wh:000000581"].halve_damage_source == f"Molten Form: {HALVE}"
    melee = {p.name: (p.invuln, p.invuln_melee) for p in profiles if p.datasheet_id in {"wh:000000594", "wh:000000646"}}
    assert melee == {"HOWLING BANSHEE": (5, 4), "HOWLING BANSHEE EXARCH": (5, 4), "Wyches": (6, 4)}
