"""Defence families (`pipeline/units/families.py`): a smaller unit of a line is solved on the largest member's
tree and its end state lumped at its wipe. Every result must equal the unit solved alone (no family in the
call), and the lumping must be the real one: P(k) equal below the smaller unit's size, the rest its wipe."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.units import AttackEntry, AttackSide, Phase, TargetUnit, compute_matchups
from pipeline.units.engine import UnitEngine, reference_matchups
from pipeline.units.families import representatives
from pipeline.units.results import Matchups
from tests.units.builders import group, side, weapon
from tests.units.test_fast_path import COLUMNS, assert_same, sides
from tests.units.test_invariants import groups

SIZES = (1, 4, 5, 10, 20)

SIDES = {
    # Devastating Wounds (mortal wounds after every other attack, the rest lost when the model dies) + D3 damage
    "devastating": side(
        (3, weapon("dw", attacks="2", skill=3, strength="5", ap=-1, damage="D3", devastating_wounds=True)),
        (5, weapon("bolt", attacks="2", skill=3, strength="4", damage="1")),
    ),
    # several steps carrying damage over, Sustained and Lethal Hits, Melta at half range
    "mixed": side(
        (2, weapon("melta", attacks="1", skill=3, strength="9", ap=-4, damage="D6", melta="2")),
        (4, weapon("sus", attacks="3", skill=4, strength="5", ap=-1, damage="2", sustained_hits="1")),
        (1, weapon("leth", attacks="D6", skill=3, strength="6", ap=-2, damage="1", lethal_hits=True)),
    ),
    # Precision does nothing without an attached Leader; Devastating Wounds in melee
    "precision melee": side(
        (4, weapon("blade", ranged=False, attacks="4", skill=3, strength="5", ap=-2, damage="2", precision=True)),
        (
            1,
            weapon("axe", ranged=False, attacks="3", skill=3, strength="8", ap=-2, damage="3", devastating_wounds=True),
        ),
    ),
}

PROFILES = {
    "MEQ with FNP 5+": group(1, wounds=2, save=3, toughness=4, fnp=5, points=20.0),
    "W3 halve damage, -1 damage": group(1, wounds=3, save=2, toughness=6, halve_damage=True, damage_reduction=1),
    "W1 5++ FNP 6+": group(1, wounds=1, save=6, toughness=3, invuln_ranged=5, invuln_melee=5, fnp=6, points=8.0),
}


def _sized(profile: Any, size: int) -> TargetUnit:
    return TargetUnit((replace(profile, count=size),))


def _alone(attacker: AttackSide, targets: list[TargetUnit], scenario: str) -> list[Matchups]:
    return [compute_matchups([attacker], [t], scenario=scenario) for t in targets]


def _assert_row(together: Matchups, row: int, alone: Matchups) -> None:
    for name in COLUMNS:
        np.testing.assert_allclose(getattr(together, name)[row], getattr(alone, name)[0], rtol=0, atol=1e-12)
    assert together.slain_dist[row].shape == alone.slain_dist[0].shape
    np.testing.assert_allclose(together.slain_dist[row], alone.slain_dist[0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("scenario", ["default", "half_range"])
@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("attack", list(SIDES))
def test_every_size_of_a_family_equals_the_size_solved_alone(attack: str, profile: str, scenario: str) -> None:
    targets = [_sized(PROFILES[profile], n) for n in SIZES]
    together = compute_matchups([SIDES[attack]], targets, scenario=scenario)
    for row, alone in enumerate(_alone(SIDES[attack], targets, scenario)):
        _assert_row(together, row, alone)


@pytest.mark.parametrize("attack", list(SIDES))
def test_a_smaller_unit_is_the_largest_lumped_at_its_wipe(attack: str) -> None:
    """The relation the family rests on, on results computed alone: P(k) equal for k below n, the rest wiped."""
    profile = PROFILES["MEQ with FNP 5+"]
    largest = _alone(SIDES[attack], [_sized(profile, 20)], "default")[0]
    big = largest.slain_dist[0]
    assert big[2:].sum() > 1e-3  # the lumped mass is not negligible: a wrong lumping would show
    for n in (1, 5):
        small = _alone(SIDES[attack], [_sized(profile, n)], "default")[0].slain_dist[0]
        np.testing.assert_allclose(small[:n], big[:n], rtol=0, atol=1e-12)
        assert small[n] == pytest.approx(big[n:].sum(), abs=1e-12)


def test_blast_is_not_merged_across_sizes_with_different_bonuses() -> None:
    """4 models (Blast +0) and 5 models (+1) are one family, but a Blast side must not use the 5-model tree for
    4 models: truncating it would give the wrong attacks (checked: the lumped 5-model result differs)."""
    blast = side((2, weapon("frag", attacks="D6", skill=4, strength="4", damage="1", blast=True)))
    plain = side((2, weapon("bolt", attacks="3", skill=4, strength="4", damage="1")))
    targets = [_sized(PROFILES["W1 5++ FNP 6+"], n) for n in (4, 5, 10, 11)]
    together = compute_matchups([blast, plain], targets)
    rows = {(int(a), int(t)): i for i, (a, t) in enumerate(together.pairs.tolist())}
    for a, attacker in enumerate((blast, plain)):
        for t, alone in enumerate(_alone(attacker, targets, "default")):
            _assert_row(together, rows[(a, t)], alone)
    five = _alone(blast, [targets[1]], "default")[0].slain_dist[0]
    four = _alone(blast, [targets[0]], "default")[0].slain_dist[0]
    assert abs(five[4:].sum() - four[4]) > 1e-3


def test_representatives_pick_the_largest_member_with_the_same_counts() -> None:
    meq, other = PROFILES["MEQ with FNP 5+"], PROFILES["W1 5++ FNP 6+"]
    sergeant = group(1, wounds=3, save=3, toughness=4)
    mixed = [TargetUnit((meq, replace(sergeant, count=n))) for n in (1, 2)]
    majority = [TargetUnit((replace(meq, count=2, toughness=5), replace(meq, count=n))) for n in (1, 3)]
    defences = [
        _sized(meq, 5), _sized(meq, 10), _sized(meq, 20), _sized(other, 10), _sized(other, 11),
        TargetUnit((replace(meq, count=10),), (sergeant,)),  # attached: its Leader ends the line
        *mixed, *majority,
    ]  # fmt: skip
    engine = UnitEngine()
    contexts = np.array([engine.context(d)[1:] for d in defences], dtype=np.int64)
    reps = representatives(defences, contexts)
    # without Blast: every size to the largest; the second group's count varies on the same first group;
    # a majority Toughness that changes with the count (T5 with 1 model, T4 with 3) keeps them apart
    assert reps[0].tolist() == [2, 2, 2, 4, 4, 5, 7, 7, 8, 9]
    # with Blast: only the same bonus (10 and 11 models: +2)
    assert reps[1].tolist() == [0, 1, 2, 4, 4, 5, 7, 7, 8, 9]


@st.composite
def family_grids(draw: Any) -> tuple[list[AttackSide], list[TargetUnit]]:
    attackers = [draw(sides(draw(st.booleans()))) for _ in range(draw(st.integers(1, 4)))]
    defenders = []
    for _ in range(draw(st.integers(1, 2))):
        first = tuple(draw(groups()) for _ in range(draw(st.integers(0, 1))))
        last = draw(groups())
        for size in draw(st.lists(st.integers(1, 12), min_size=2, max_size=4, unique=True)):
            defenders.append(TargetUnit((*first, replace(last, count=size))))
    return attackers, defenders


@pytest.mark.parametrize("scenario", ["default", "half_range", "cover"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=family_grids())
def test_family_grids_equal_the_per_job_chain(scenario: str, grid: tuple[list[AttackSide], list[TargetUnit]]) -> None:
    attackers, defenders = grid
    assert_same(compute_matchups(attackers, defenders, scenario=scenario),
                reference_matchups(attackers, defenders, scenario=scenario))  # fmt: skip


def test_a_fight_side_with_choices_against_a_family() -> None:
    """Weapon choices are resolved per size (the choice reads the first group, count included) before the
    family merges the trees."""
    blades = (
        weapon("a", ranged=False, attacks="3", strength="4", ap=-1),
        weapon("b", ranged=False, attacks="1", strength="8", ap=-3, damage="D3", devastating_wounds=True),
    )
    choose = AttackSide((AttackEntry(5, blades), AttackEntry(1, blades[1:])), Phase.FIGHT)
    targets = [_sized(PROFILES["MEQ with FNP 5+"], n) for n in SIZES]
    assert_same(compute_matchups([choose], targets), reference_matchups([choose], targets))
