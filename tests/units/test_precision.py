"""Two-line jobs: the leading run of normal (or of Precision) steps runs on one line, mapped onto the two lines.

A normal weapon resolved before the Precision one (higher mean Damage) can kill the Bodyguard and wound the
Leader; the Precision step must then find the Leader wounded (state (B, s - B)), not fresh. A Precision
weapon resolved first can kill the Leader and wound the Bodyguard (state (s - L, L)).
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.units import TargetUnit
from pipeline.units.engine import UnitEngine, compute_matchups, reference_matchups
from pipeline.units.plan import line_states
from pipeline.units.precision import leading_run, suffix, two_line_index
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


def test_the_bodyguard_wounded_by_a_first_precision_step_stays_wounded() -> None:
    # A Precision D3 weapon (2 attacks) first: one wound kills the W3 Leader, the next falls on a W1 Bodyguard;
    # then the D1 gun's one attack.
    sniper = weapon("big", attacks="2", skill=None, torrent=True, strength="8", damage="3", precision=True)
    gun = weapon("small", attacks="1", skill=None, torrent=True, strength="8", damage="1")
    result = compute_matchups([side((1, sniper), (1, gun))], [ATTACHED])
    q = 1 - P
    # Precision wounds M ~ Binomial(2, p): M = 0 -> the gun hits a Bodyguard; M >= 1 -> Leader dead, the
    # second wound a Bodyguard, the gun the next Bodyguard.
    m0, m1, m2 = q * q, 2 * P * q, P * P
    expected = [m0 * q, m0 * P + m1 * q, m1 * P + m2 * q, m2 * P]
    np.testing.assert_allclose(result.slain_dist[0], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "first",
    [
        GUN,
        weapon("dev", attacks="4", skill=None, torrent=True, strength="4", damage="2", devastating_wounds=True),
        weapon("dev-melta", attacks="2", skill=3, strength="6", damage="D3", melta="1", devastating_wounds=True),
        weapon("dev-p", attacks="3", skill=3, strength="5", damage="D3", devastating_wounds=True, precision=True),
        weapon("gun-p", attacks="2", skill=None, torrent=True, strength="8", damage="3", precision=True),
    ],
)
@pytest.mark.parametrize("scenario", ["default", "half_range"])
def test_one_line_prefix_equals_the_two_line_chain(first: object, scenario: str) -> None:
    # Pending Devastating Wounds of the prefix ride through the mapping on their own axis.
    targets = [ATTACHED, TargetUnit((group(3, wounds=2, save=4),), leader=(group(1, wounds=4, save=3, fnp=5),))]
    attackers = [
        side((2, first), (1, SNIPER)), side((1, first), (2, SNIPER), (1, GUN)), side((1, first), (1, GUN)),
        side((1, first)),
    ]  # fmt: skip
    fast = compute_matchups(attackers, targets, scenario=scenario)
    assert_same(fast, reference_matchups(attackers, targets, scenario=scenario))


@pytest.mark.parametrize(
    ("leader_first", "expected"),
    [
        # Bodyguard first: s <= B -> (s, 0) = s * (L + 1); s > B -> (B, s - B) = B * (L + 1) + s - B.
        (False, [0, 4, 8, 9, 10, 11]),
        # Leader first: s <= L -> (0, s) = s; s > L -> (s - L, L) = (s - L) * (L + 1) + L.
        (True, [0, 1, 2, 3, 7, 11]),
    ],
)
def test_one_line_states_map_onto_the_two_lines(leader_first: bool, expected: list[int]) -> None:
    engine = UnitEngine()
    body, leader = line_states(ATTACHED, True)
    two = defences([ATTACHED], [engine.layout(ATTACHED, True, body, leader)], True)
    flat = defences([ATTACHED], [engine.layout(ATTACHED, False, 8, 1)], False)  # padded: 2 scratch states
    assert two_line_index(two, flat, leader_first).tolist() == [[*expected, two.size, two.size]]


def test_chains_split_after_their_leading_run() -> None:
    precise = np.array([False, True, False])
    chains = np.array([[0, 1, 2], [1, 1, 0], [2, 0, 1], [1, -1, -1]])
    run = leading_run(precise, chains)
    assert run.tolist() == [1, 2, 2, 1]
    assert suffix(chains, run).tolist() == [[1, 2, -1], [0, -1, -1], [1, -1, -1], [-1, -1, -1]]
