"""`models_slain` and `wounds_lost`: hand-computed cells, and the unit engine (`pipeline.units`) as oracle.

One cell = one model's attacks with the weapon against a unit of `unit_size` models of the target
profile, wounds allocated one at a time (a wounded model first, excess damage lost, FNP per point,
Devastating Wounds mortal wounds after the other attacks). Unless a case says otherwise the weapon is
ranged A10 BS3+ S4 AP0 D1 and the target T4 Sv3+ W2 INFANTRY in a unit of 5 (builders' defaults).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from schemas.records import ModelProfile, Weapon
from tests.damage import builders
from tests.damage.builders import cell, target, weapon
from tests.damage.test_simulator import _random_target, _random_weapon
from tests.damage.unit_oracle import oracle

REL, ABS = 1e-9, 1e-12


def check(actual: dict[str, Any], **expected: float) -> None:
    for name, value in expected.items():
        assert actual[name] == pytest.approx(value, rel=REL, abs=ABS), name


@pytest.mark.parametrize(("attacks", "slain"), [("1", 1 / 6), ("2", 2 / 36 + 10 / 36)])
def test_worked_check_of_the_rules(attacks: str, slain: float) -> None:
    # DAMAGE_RULES.md: one attack BS3+ S4 vs T4 AP-1 D2 against 2 models W2 Sv3+: P(slay) = 4/6 × 3/6 × 3/6
    # = 1/6. Two attacks: P(2) = 1/36, P(1) = 10/36 -> expected 12/36; each slain model lost its 2 wounds.
    result = cell(weapon(attacks=attacks, ap=-1, damage="2"), target(unit_size=2))
    check(result, models_slain=slain, wounds_lost=2 * slain)


def test_a_wounded_model_takes_the_next_wound_and_excess_damage_is_lost() -> None:
    # A2 torrent S8 vs T4 (2+: 5/6 wound) D6, no save, vs 3 models W2. One wound: D6 = 1 (1/6) leaves a model
    # on 1, else it dies: slain 5/6, wounds 11/6. Two wounds: (1, any) -> 1 slain, 2 lost; (2+, 1) -> 1 slain,
    # 3 lost; (2+, 2+) -> 2 slain, 4 lost: slain 61/36, lost 127/36.
    # Wounds: P(1) = 10/36, P(2) = 25/36 -> slain = 10/36 × 5/6 + 25/36 × 61/36 = 1825/1296,
    # lost = 10/36 × 11/6 + 25/36 × 127/36 = 3835/1296 (per attack, capped: 2 × 5/6 × 11/6 = 3960/1296)
    w = weapon(attacks="2", skill=None, strength=8, damage="D6", abilities=["torrent"])
    result = cell(w, target(save=7, unit_size=3))
    check(result, models_slain=1825 / 1296, wounds_lost=3835 / 1296, damage_capped=3960 / 1296)


def test_devastating_mortal_wounds_stop_when_the_model_dies() -> None:
    # A1 torrent anti-infantry 2+ devastating wounds D3 vs 2 INFANTRY models W2 Sv2+: every successful wound
    # roll (5/6) is critical: D3 mortal wounds, no save. 1 -> 1 lost; 2 or 3 -> the model dies, the rest is lost.
    w = weapon(attacks="1", skill=None, damage="D3", abilities=["torrent", "anti-infantry 2+", "devastating wounds"])
    result = cell(w, target(save=2, unit_size=2))
    check(result, models_slain=5 / 6 * 2 / 3, wounds_lost=5 / 6 * (1 / 3 + 2 / 3 * 2))


def test_feel_no_pain_is_rolled_per_point_before_it_is_applied() -> None:
    # A1 BS3+ S4 vs T4 AP-1 D2 vs one W2 model with FNP 5+: unsaved 1/6; each point lost with 4/6;
    # the model dies when both are lost: slain 1/6 × 4/9, wounds lost 1/6 × 2 × 4/6
    result = cell(weapon(attacks="1", ap=-1, damage="2"), target(unit_size=1, fnp=5))
    check(result, models_slain=1 / 6 * 4 / 9, wounds_lost=1 / 6 * 2 * 4 / 6)


def test_halve_damage_at_unit_level() -> None:
    # Lascannon A1 BS4+ S12 AP-3 D6+1 vs the Avatar of Khaine (W14, halve damage): unsaved 1/6 (hand case in
    # test_hand_cases.py), at most 4 damage: nobody dies, 1/6 × 2.5 wounds lost (= damage = 0.41667).
    # Against one W2 model with halve damage: D6+1 halved is 1, 2, 2, 3, 3, 4: slain 1/6 × 5/6.
    lascannon = weapon(attacks="1", skill=4, strength=12, ap=-3, damage="D6+1")
    avatar = target(toughness=11, save=2, invuln=4, wounds=14, unit_size=1, halve_damage=True)
    check(cell(lascannon, avatar), models_slain=0.0, wounds_lost=1 / 6 * 2.5)
    assert cell(lascannon, avatar)["wounds_lost"] == pytest.approx(0.4167, abs=1e-4)
    small = target(toughness=11, save=2, invuln=4, wounds=2, unit_size=1, halve_damage=True)
    check(cell(lascannon, small), models_slain=1 / 6 * 5 / 6)


@pytest.mark.parametrize(("unit_size", "expected"), [(None, 1), (1, 1), (3, 3)])
def test_a_null_unit_size_is_one_model(unit_size: int | None, expected: int) -> None:
    # A30 torrent S8 D3 vs W1 Sv7+: practically every model dies; never more than the unit has
    w = weapon(attacks="30", skill=None, strength=8, damage="3", abilities=["torrent"])
    result = cell(w, target(save=7, wounds=1, unit_size=unit_size))
    assert result["models_slain"] == pytest.approx(expected, abs=1e-9)
    assert result["wounds_lost"] == pytest.approx(expected, abs=1e-9)


def test_blast_counts_the_target_units_size() -> None:
    # A1 torrent blast vs a unit of 10 W1 Sv7+: 1 + 2 attacks; S4 vs T4 wounds on 4+: 3 × 1/2 slain
    w = weapon(attacks="1", skill=None, abilities=["torrent", "blast"])
    check(cell(w, target(save=7, wounds=1, unit_size=10)), attacks=3, models_slain=1.5, wounds_lost=1.5)


# --- the unit engine as oracle -----------------------------------------------------------------------------

CELLS = 200
SEED = 20240613


def _oracle_cells() -> list[tuple[Weapon, ModelProfile, bool, str]]:
    rng = random.Random(SEED)
    specs = [_random_weapon(rng, i) for i in range(50)]
    weapons = [builders.weapon(s["weapon_id"], **{k: v for k, v in s.items() if k != "weapon_id"}) for s in specs]
    profiles = []
    for i in range(30):
        spec = _random_target(rng, i)
        stealth = spec.pop("stealth")
        profiles.append((builders.target(spec.pop("profile_id"), **spec), stealth))
    scenarios = list(SCENARIO_DEFINITIONS)
    return [(rng.choice(weapons), *rng.choice(profiles), rng.choice(scenarios)) for _ in range(CELLS)]


@pytest.fixture(scope="module")
def engine_cells() -> dict[tuple[str, str, str], dict[str, Any]]:
    picks = _oracle_cells()
    weapons = list({w.weapon_id: w for w, *_ in picks}.values())
    profiles = list({p.profile_id: p for _, p, _, _ in picks}.values())
    stealthy = [p.profile_id for _, p, stealth, _ in picks if stealth]
    matrix = builders.run(weapons, profiles, list(SCENARIO_DEFINITIONS), stealth=stealthy)
    return {(r["weapon_id"], r["profile_id"], r["scenario"]): r for r in matrix.iter_rows(named=True)}


def test_the_matrix_equals_the_unit_engine_on_random_cells(engine_cells: dict[tuple[str, str, str], Any]) -> None:
    """Every rule (abilities, scenarios, Stealth, halve damage, invulns by attack type, unit sizes 1-20)."""
    for w, profile, stealth, scenario in _oracle_cells():
        row = engine_cells[(w.weapon_id, profile.profile_id, scenario)]
        slain, lost = oracle(w, profile, scenario, stealth)
        assert row["models_slain"] == pytest.approx(slain, rel=1e-9, abs=1e-12), (w, profile, scenario)
        assert row["wounds_lost"] == pytest.approx(lost, rel=1e-9, abs=1e-12), (w, profile, scenario)


def test_the_oracle_sample_exercises_the_unit_rules() -> None:
    picks = _oracle_cells()
    assert {p.halve_damage for _, p, _, _ in picks} == {True, False}
    assert any(p.invuln_melee for _, p, _, _ in picks if p.invuln_melee)
    assert any("devastating wounds" in w.abilities for w, *_ in picks)
    assert {p.unit_size for _, p, _, _ in picks} >= {1, 20}
