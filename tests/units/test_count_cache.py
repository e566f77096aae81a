"""Wound-count pmfs shared by every engine of a process (`pipeline/units/count_cache.py`): an engine whose
counts come from a table other weapons and scenarios filled first must give exactly what an engine gives that
computes every count on its own (`counts.wound_counts`).
Each field of the key is checked by a pair of weapons that differ only in it (the counts differ), so a key
that misses a field hands the second weapon the first one's counts and fails."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from bench.units_corpus import corpus_attackers, corpus_options
from pipeline.damage.reference import reference_targets_frame
from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from pipeline.matchups.reference import reference_units
from pipeline.units import AttackSide, Phase, TargetUnit, UnitEngine, Weapon, compute_matchups
from pipeline.units.count_cache import COUNT_FIELDS, SharedCounts
from pipeline.units.counts import FloatArray, WoundContext, count_key, wound_counts
from pipeline.units.results import Matchups
from schemas.dice import Dice
from tests.units.builders import group, side
from tests.units.builders import weapon as _weapon

SCENARIOS = ("default", "half_range", "charged", "stationary", "cover")
COLUMNS = ("expected_slain", "p_any", "p_wipe", "slain_p10", "slain_p50", "slain_p90", "wounds_lost",
           "points_destroyed", "job_dist")  # fmt: skip

BASE: dict[str, Any] = dict(attacks="2", skill=3, strength="4", ap=-1, damage="1")
VARIANTS: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    # field: (first weapon's stats, second's (differs only in the field), scenario)
    "attacks": ({}, {"attacks": "3"}, "default"),
    "strength": ({"strength": "2D3"}, {"strength": Dice(n=1, sides=5, plus=1)}, "default"),
    "sustained_hits": ({}, {"sustained_hits": "1"}, "default"),
    "lethal_hits": ({}, {"lethal_hits": True}, "default"),
    "devastating_wounds": ({}, {"devastating_wounds": True}, "default"),
    "twin_linked": ({}, {"twin_linked": True}, "default"),
    "rapid_fire at half range": ({"rapid_fire": "1"}, {"rapid_fire": "2"}, "half_range"),
}
"""Per field of the key, two weapons whose counts differ only through it, and whose count keys are equal."""

READ_BY_THE_COUNT_KEY: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    # fields outside the key: where the count key is equal, the counts are equal too
    "skill": ({"torrent": True, "skill": 3}, {"torrent": True, "skill": 5}, "default"),
    "torrent": ({"skill": None}, {"skill": None, "torrent": True}, "default"),
    "ranged": ({}, {"ranged": False}, "default"),
    "heavy": ({}, {"heavy": True}, "default"),
    "indirect_fire": ({}, {"indirect_fire": True}, "default"),
    "lance": ({}, {"lance": True}, "default"),
    "anti": ({}, {"anti": (("VEHICLE", 2),)}, "default"),
    "blast": ({}, {"blast": True}, "default"),  # against 4 models: no bonus
    "rapid_fire": ({}, {"rapid_fire": "2"}, "default"),
    "ap": ({}, {"ap": -3}, "default"),
    "damage": ({}, {"damage": "D6"}, "default"),
    "melta": ({}, {"melta": "2"}, "half_range"),
    "ignores_cover": ({}, {"ignores_cover": True}, "cover"),
    "precision": ({}, {"precision": True}, "default"),
    "weapon_id": ({}, {}, "default"),
}
"""Every other field of `Weapon`, with a pair the count key cannot tell apart: their counts must be equal."""

SQUAD = TargetUnit((group(10, wounds=1, save=4, toughness=4, keywords=frozenset({"INFANTRY"})),))


def weapon(weapon_id: str, **stats: Any) -> Weapon:
    """`builders.weapon`, Strength also as a Dice (2D3 and a D5+1 share their values: only the weights differ,
    so the count key's wound roll per Strength value cannot tell them apart; the weapon's fields must)."""
    strength = stats.pop("strength")
    built = _weapon(weapon_id, **stats, strength=strength if isinstance(strength, str) else "1")
    return built if isinstance(strength, str) else replace(built, strength=strength)


def _assert_identical(shared: Matchups, fresh: Matchups) -> None:
    for name in COLUMNS:
        assert np.array_equal(getattr(shared, name), getattr(fresh, name)), name


class Uncached(SharedCounts):
    """The reference: every count pmf computed on its own by `counts.wound_counts` (nothing shared)."""

    def wound_counts(self, weapon: Weapon, uses: int, ctx: WoundContext, ckey: tuple[object, ...]) -> FloatArray:
        return wound_counts(weapon, uses, ctx)


def _fresh(sides: list[AttackSide], targets: list[TargetUnit], scenario: str) -> Matchups:
    return compute_matchups(sides, targets, engine=UnitEngine(scenario, shared=Uncached()))


def test_every_weapon_field_is_in_the_key_or_read_through_the_count_key() -> None:
    fields = {f for f in Weapon.__dataclass_fields__ if not f.startswith("_")}
    assert set(COUNT_FIELDS) | set(READ_BY_THE_COUNT_KEY) == fields
    assert {f.split()[0] for f in VARIANTS} == {*COUNT_FIELDS, "rapid_fire"}


@pytest.mark.parametrize("field", list(READ_BY_THE_COUNT_KEY))
def test_fields_outside_the_key_leave_the_counts_unchanged(field: str) -> None:
    first_stats, second_stats, scenario = READ_BY_THE_COUNT_KEY[field]
    first, second = weapon("a", **{**BASE, **first_stats}), weapon("b", **{**BASE, **second_stats})
    ctx = WoundContext(4, frozenset({"INFANTRY"}), False, 0, SCENARIO_DEFINITIONS[scenario])
    assert count_key(first, ctx) == count_key(second, ctx)
    assert np.array_equal(wound_counts(first, 5, ctx), wound_counts(second, 5, ctx))


@pytest.mark.parametrize("field", list(VARIANTS))
def test_a_weapon_differing_in_one_count_field_gets_its_own_counts(field: str) -> None:
    first_stats, second_stats, scenario = VARIANTS[field]
    first, second = weapon("a", **{**BASE, **first_stats}), weapon("b", **{**BASE, **second_stats})
    ctx = UnitEngine(scenario).context(SQUAD)[0]
    assert count_key(first, ctx) == count_key(second, ctx)
    attack = [side((5, second))]
    alone = _fresh(attack, [SQUAD], scenario)
    assert not np.array_equal(alone.job_dist, _fresh([side((5, first))], [SQUAD], scenario).job_dist)
    shared = SharedCounts()
    compute_matchups([side((5, first))], [SQUAD], engine=UnitEngine(scenario, shared=shared))
    _assert_identical(compute_matchups(attack, [SQUAD], engine=UnitEngine(scenario, shared=shared)), alone)


def test_rapid_fire_counts_are_apart_at_half_range() -> None:
    gun = weapon("rf", **BASE, rapid_fire="1")
    shared = SharedCounts()
    for scenario in ("default", "half_range"):
        together = compute_matchups([side((5, gun))], [SQUAD], engine=UnitEngine(scenario, shared=shared))
        _assert_identical(together, _fresh([side((5, gun))], [SQUAD], scenario))


def test_a_key_without_a_field_would_share_wrong_counts() -> None:
    """The check above can fail: a table whose key lacks Sustained Hits hands the second weapon wrong counts."""
    first, second = weapon("a", **BASE), weapon("b", **BASE, sustained_hits="1")
    broken = SharedCounts(tuple(f for f in COUNT_FIELDS if f != "sustained_hits"))
    compute_matchups([side((5, first))], [SQUAD], engine=UnitEngine(shared=broken))
    wrong = compute_matchups([side((5, second))], [SQUAD], engine=UnitEngine(shared=broken))
    assert not np.array_equal(wrong.job_dist, _fresh([side((5, second))], [SQUAD], "default").job_dist)


@pytest.fixture(scope="module")
def corpus_sides() -> dict[Phase, list[AttackSide]]:
    sheets, options = corpus_options()
    rng = random.Random(13)
    return {phase: rng.sample(corpus_attackers(sheets, options, phase), 40) for phase in Phase}


@pytest.mark.parametrize("phase", list(Phase))
def test_corpus_sides_against_the_reference_units_share_counts_across_scenarios(
    corpus_sides: dict[Phase, list[AttackSide]], phase: Phase
) -> None:
    """Real weapon profiles (the Wahapedia export) against the reference units, every scenario in one table in
    turn (as a pool process computes `unit_vs_reference`): the same numbers as an engine with its own table."""
    targets = [u.target for u in reference_units(reference_targets_frame().to_dicts()) if u.target is not None]
    shared = SharedCounts()
    for scenario in SCENARIOS:
        together = compute_matchups(corpus_sides[phase], targets, engine=UnitEngine(scenario, shared=shared))
        _assert_identical(together, _fresh(corpus_sides[phase], targets, scenario))
    assert len(shared) > 0


def test_profiles_differing_in_damage_share_one_pmf() -> None:
    shared = SharedCounts()
    light, heavy = weapon("a", **BASE), weapon("b", **{**BASE, "damage": "D3", "ap": -2})
    engine = UnitEngine(shared=shared)
    assert engine.counts(light, 5, SQUAD) is engine.counts(heavy, 5, SQUAD)
    assert replace(light, weapon_id="") != replace(heavy, weapon_id="")


def test_shared_pmfs_refuse_writes() -> None:
    pmf = UnitEngine(shared=SharedCounts()).counts(weapon("a", **BASE), 5, SQUAD)
    with pytest.raises(ValueError, match="read-only"):
        pmf[0, 0] = 1.0
