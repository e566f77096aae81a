"""The prefix-tree path (`compute_matchups`) against the per-job chain (`reference_matchups`), column by column.

Random grids of several attack sides (weapon choices, Devastating Wounds,
Precision, Blast, several entries) against several targets (mixed profiles,
attached Leaders), in every scenario that changes the counts or the losses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.units import AttackEntry, AttackSide, Phase, TargetUnit
from pipeline.units.engine import compute_matchups, reference_matchups
from pipeline.units.results import Matchups
from tests.units.test_invariants import groups, weapons

COLUMNS = (
    "expected_slain", "p_any", "p_wipe", "slain_p10", "slain_p50", "slain_p90", "wounds_lost", "points_destroyed",
    "points_destroyed_per_100",
)  # fmt: skip


@st.composite
def sides(draw: Any, ranged: bool) -> AttackSide:
    entries = []
    for _ in range(draw(st.integers(1, 3))):
        choices = tuple(draw(weapons(ranged)) for _ in range(draw(st.integers(1, 3 if not ranged else 1))))
        entries.append(AttackEntry(draw(st.integers(1, 6)), choices))
    phase = Phase.SHOOTING if ranged else Phase.FIGHT
    return AttackSide(tuple(entries), phase, points=draw(st.sampled_from([0.0, 90.0])))


@st.composite
def targets(draw: Any) -> TargetUnit:
    body = tuple(draw(groups()) for _ in range(draw(st.integers(1, 3))))
    leader = tuple(draw(groups()) for _ in range(draw(st.integers(0, 2))))
    return TargetUnit(body, leader)


@st.composite
def grids(draw: Any) -> tuple[list[AttackSide], list[TargetUnit]]:
    attackers = [draw(sides(draw(st.booleans()))) for _ in range(draw(st.integers(1, 5)))]
    defenders = [draw(targets()) for _ in range(draw(st.integers(1, 5)))]
    return attackers, defenders


def assert_same(fast: Matchups, reference: Matchups) -> None:
    for name in COLUMNS:
        np.testing.assert_allclose(getattr(fast, name), getattr(reference, name), rtol=0, atol=1e-12, err_msg=name)
    for a, b in zip(fast.slain_dist, reference.slain_dist, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("scenario", ["default", "half_range", "charged", "stationary", "cover", "indirect"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=grids())
def test_fast_path_equals_the_per_job_chain(scenario: str, grid: tuple[list[AttackSide], list[TargetUnit]]) -> None:
    attackers, defenders = grid
    fast = compute_matchups(attackers, defenders, scenario=scenario)
    assert_same(fast, reference_matchups(attackers, defenders, scenario=scenario))
    bare = compute_matchups(attackers, defenders, scenario=scenario, distributions=False)  # the table's way
    assert bare.job_dist.shape == (fast.distinct, 0)
    for name in COLUMNS:  # the same numbers, bit for bit
        np.testing.assert_array_equal(getattr(bare, name), getattr(fast, name), err_msg=name)


def test_a_tie_broken_only_by_rounding_goes_to_the_first_choice() -> None:
    """Both choices expect 4/3 wounds on the first model; float rounding made the old argmax pick the second."""
    from pipeline.units import UnitEngine
    from tests.units.builders import group, weapon

    flags: dict[str, Any] = dict(
        skill=None, torrent=True, ranged=False, devastating_wounds=True, twin_linked=True, blast=True
    )
    first = weapon("a", attacks="2", strength="5", ap=-2, damage="D3", precision=True, **flags)
    second = weapon("a", attacks="D3", strength="8", ap=0, damage="D6", **flags)
    target = TargetUnit(
        (
            group(5, wounds=1, save=2, toughness=5, invuln_ranged=5, invuln_melee=4, fnp=5, halve_damage=True),
            group(2, wounds=4, save=4, toughness=3, invuln_ranged=4, fnp=6, damage_reduction=1),
        )
    )
    entry = AttackEntry(3, (first, second))
    engine = UnitEngine()
    scores = [engine.expected_damage(w.profile(), target, Phase.FIGHT) for w in entry.choices]
    assert scores[0] == pytest.approx(4 / 3, abs=1e-12) and scores[1] == pytest.approx(4 / 3, abs=1e-12)
    assert engine.choose(entry, target, Phase.FIGHT) is first
    side = AttackSide((entry,), Phase.FIGHT)
    assert_same(compute_matchups([side], [target]), reference_matchups([side], [target]))
