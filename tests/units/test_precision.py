"""Two-line jobs whose first steps are normal: those steps run on one line and are mapped onto the two lines.

A normal weapon resolved before the Precision one (higher mean Damage) can kill the Bodyguard and wound the
Leader; the Precision step must then find the Leader wounded (state (B, s - B)), not fresh.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.units import TargetUnit
from pipeline.units.engine import UnitEngine, compute_matchups, reference_matchups
from pipeline.units.plan import line_states
from pipeline.units.precision import first_precise, suffix, two_line_index
from pipeline.units.tables import defences
from tests.units.builders import group, side, weapon
from tests.units.test_fast_path import assert_same

# 2 Bodyguard models W1 (B = 2) and a W3 Leader (L = 3), no saves, T4.
ATTACHED = TargetUnit(
    (group(2, wounds=1, save=7, points=10.0),), leader=(group(1, wounds=3, save=7, character=True, points=60.0),)
)
# Torrent S8 vs T4 wounds on 2+ (p = 5/6). The D2 gun resolves first (higher mean Damage) and is not Precision.
GUN = weapon("gun", attacks="3", skill=None, torrent=True, strength="8", ap=0, damage="2")
SNIPER = weapon("sniper", attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="1", precision=True)
P = 5 / 6


def test_the_leader_wounded_before_the_precision_step_stays_wounded() -> None:
    # N ~ Binomial(3, p) gun wounds: two kill the Bodyguard, the third puts 2 wounds on the Leader; the sniper's
    # wound then kills the Leader only if N = 3 (a fresh Leader would survive it).
    result = compute_matchups([side((1, GUN), (1, SNIPER))], [ATTACHED])
    q = 1 - P
    expected = [q**3, 3 * P * q**2, 3 * P**2 * q + P**3 * q, P**4]
    np.testing.assert_allclose(result.slain_dist[0], expected, rtol=0, atol=1e-12)
    assert result.p_wipe[0] == pytest.approx(P**4, rel=1e-12)


@pytest.mark.parametrize(
    "first",
    [
        GUN,
        weapon("dev", attacks="4", skill=None, torrent=True, strength="4", damage="2", devastating_wounds=True),
        weapon("dev-melta", attacks="2", skill=3, strength="6", damage="D3", melta="1", devastating_wounds=True),
    ],
)
@pytest.mark.parametrize("scenario", ["default", "half_range"])
def test_one_line_prefix_equals_the_two_line_chain(first: object, scenario: str) -> None:
    # Pending Devastating Wounds of the prefix ride through the mapping on their own axis.
    targets = [ATTACHED, TargetUnit((group(3, wounds=2, save=4),), leader=(group(1, wounds=4, save=3, fnp=5),))]
    attackers = [side((2, first), (1, SNIPER)), side((1, first), (2, SNIPER), (1, GUN))]
    fast = compute_matchups(attackers, targets, scenario=scenario)
    assert_same(fast, reference_matchups(attackers, targets, scenario=scenario))


def test_one_line_states_map_onto_bodyguard_then_leader() -> None:
    # s <= B -> (s, 0) = s * (L + 1); s > B -> (B, s - B); flat states past B + L go to the scratch index.
    engine = UnitEngine()
    body, leader = line_states(ATTACHED, True)
    two = defences([ATTACHED], [engine.layout(ATTACHED, True, body, leader)], True)
    flat = defences([ATTACHED], [engine.layout(ATTACHED, False, 8, 1)], False)
    assert two_line_index(two, flat).tolist() == [[0, 4, 8, 9, 10, 11, two.size, two.size]]


def test_chains_split_at_the_first_precision_step() -> None:
    precise = np.array([False, True, False])
    chains = np.array([[0, 1, 2], [1, 0, -1], [2, 0, 1]])
    first = first_precise(precise, chains)
    assert first.tolist() == [1, 0, 2]
    assert suffix(chains, first).tolist() == [[1, 2, -1], [1, 0, -1], [1, -1, -1]]
