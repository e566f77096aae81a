"""The engine against the dice-by-dice simulator: several weapons, mixed profiles, Leaders, every ability.

Each case runs 100,000 trials; every P(k slain), the mean models slain and the
mean wounds lost must agree within 4 standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from pipeline.units import AttackEntry, AttackSide, Phase, TargetUnit, Weapon, compute_matchups
from tests.units.builders import group, weapon
from tests.units.simulator import simulate

TRIALS = 100_000
INFANTRY = frozenset({"INFANTRY"})

CASES: dict[str, tuple[TargetUnit, list[tuple[Weapon, int]], str]] = {
    "precision-devastating-leader": (
        TargetUnit(
            (group(4, keywords=INFANTRY), group(1, wounds=3, save=2, fnp=5)),
            leader=(group(1, wounds=4, save=3, invuln_ranged=4, character=True),),
        ),
        [
            (weapon("a", attacks="2", ap=-1, sustained_hits="1"), 5),
            (
                weapon(
                    "b",
                    attacks="D3",
                    strength="2D6",
                    ap=-2,
                    damage="D3",
                    devastating_wounds=True,
                    anti=(("INFANTRY", 4),),
                ),
                2,
            ),
            (weapon("c", attacks="1", strength="8", ap=-3, damage="D6", precision=True, melta="2"), 1),
        ],
        "default",
    ),
    "fight-halve-reduction-invuln": (
        TargetUnit(
            (
                group(3, wounds=3, save=4, toughness=5, invuln_melee=4, invuln_ranged=5),
                group(1, wounds=5, save=2, toughness=5, halve_damage=True, damage_reduction=1),
            )
        ),
        [
            (weapon("fist", attacks="3", skill=4, strength="8", ap=-2, damage="2", ranged=False, lethal_hits=True), 1),
            (
                weapon(
                    "blade",
                    attacks="2",
                    skill=3,
                    strength="5",
                    ap=-1,
                    damage="D3",
                    ranged=False,
                    sustained_hits="D3",
                    twin_linked=True,
                    lance=True,
                ),
                4,
            ),
        ],
        "charged",
    ),
    "shooting-blast-melta-cover": (
        TargetUnit((group(9, wounds=1, save=5, toughness=3, stealth=True, fnp=6), group(2, wounds=2, save=4))),
        [
            (weapon("frag", attacks="D6", skill=4, strength="4", damage="1", blast=True, heavy=True), 1),
            (weapon("rifle", attacks="1", skill=3, strength="4", rapid_fire="1"), 6),
            (weapon("flamer", attacks="D6", skill=None, torrent=True, strength="4", ignores_cover=True), 1),
            (weapon("melta", attacks="1", skill=3, strength="9", ap=-4, damage="D6", melta="2"), 1),
        ],
        "half_range",
    ),
    "indirect-unseen": (
        TargetUnit((group(5, wounds=2, save=3, toughness=4),)),
        [
            (weapon("mortar", attacks="D6+1", skill=4, strength="5", ap=-1, damage="2", indirect_fire=True), 2),
            (weapon("rifle", attacks="2", skill=3), 5),
        ],
        "indirect",
    ),
}

pytestmark = pytest.mark.slow  # 4 cases x 100k Monte Carlo trials: about a minute


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_matches_simulation(name: str) -> None:
    target, weapons, scenario = CASES[name]
    phase = Phase.SHOOTING if weapons[0][0].ranged else Phase.FIGHT
    attacker = AttackSide(tuple(AttackEntry(n, (w,)) for w, n in weapons), phase)
    result = compute_matchups([attacker], [target], scenario=scenario)
    exact = result.slain_dist[0]
    slain, lost = simulate(target, weapons, phase, SCENARIO_DEFINITIONS[scenario], TRIALS, seed=len(name))
    empirical = np.bincount(slain, minlength=len(exact)) / TRIALS
    assert len(empirical) == len(exact)
    error = np.sqrt(np.maximum(exact * (1 - exact), 1e-12) / TRIALS)
    assert np.all(np.abs(empirical - exact) <= 4 * error + 1e-9), (exact, empirical)
    assert abs(slain.mean() - result.expected_slain[0]) <= 4 * slain.std(ddof=1) / np.sqrt(TRIALS) + 1e-9
    assert abs(lost.mean() - result.wounds_lost[0]) <= 4 * lost.std(ddof=1) / np.sqrt(TRIALS) + 1e-9
    assert result.p_any[0] > 0.02  # the case exercises the rules, not an empty distribution
