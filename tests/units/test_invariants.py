"""Invariants over random units and weapons (hypothesis): the engine's numbers are a distribution."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.units import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, compute_matchups
from tests.units.builders import group, weapon

DICE = st.sampled_from(["1", "2", "3", "D3", "D6", "D3+1", "2D6"])


@st.composite
def weapons(draw: Any, ranged: bool) -> Any:
    torrent = draw(st.booleans())
    return weapon(
        draw(st.sampled_from(["a", "b", "c"])),
        attacks=draw(st.sampled_from(["1", "2", "D3", "D6", "4"])),
        skill=None if torrent else draw(st.integers(2, 5)),
        torrent=torrent,
        strength=draw(st.sampled_from(["3", "4", "5", "8", "12", "2D6"])),
        ap=draw(st.integers(-4, 0)),
        damage=draw(DICE),
        ranged=ranged,
        sustained_hits=draw(st.sampled_from([None, "1", "D3"])),
        lethal_hits=draw(st.booleans()),
        devastating_wounds=draw(st.booleans()),
        anti=draw(st.sampled_from([(), (("INFANTRY", 4),)])),
        twin_linked=draw(st.booleans()),
        blast=draw(st.booleans()),
        precision=draw(st.booleans()),
    )


@st.composite
def groups(draw: Any) -> ModelGroup:
    return group(
        draw(st.integers(1, 5)),
        wounds=draw(st.integers(1, 4)),
        save=draw(st.integers(2, 7)),
        toughness=draw(st.sampled_from([3, 4, 5, 8])),
        invuln_ranged=draw(st.sampled_from([4, 5, 7])),
        invuln_melee=draw(st.sampled_from([4, 5, 7])),
        fnp=draw(st.sampled_from([5, 6, 7])),
        damage_reduction=draw(st.sampled_from([0, 1])),
        halve_damage=draw(st.booleans()),
        keywords=draw(st.sampled_from([frozenset(), frozenset({"INFANTRY"})])),
        points=draw(st.sampled_from([10.0, 25.0])),
    )


@st.composite
def matchups(draw: Any) -> tuple[AttackSide, TargetUnit]:
    ranged = draw(st.booleans())
    entries = tuple(
        AttackEntry(draw(st.integers(1, 4)), (draw(weapons(ranged)),)) for _ in range(draw(st.integers(1, 3)))
    )
    side = AttackSide(entries, Phase.SHOOTING if ranged else Phase.FIGHT, points=100.0)
    body = tuple(draw(groups()) for _ in range(draw(st.integers(1, 2))))
    leader = (draw(groups()),) if draw(st.booleans()) else ()
    return side, TargetUnit(body, leader)


def more_uses(side: AttackSide) -> AttackSide:
    first = side.entries[0]
    return AttackSide((AttackEntry(first.models + 1, first.choices), *side.entries[1:]), side.phase, side.points)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matchups())
def test_results_are_a_distribution_within_the_unit(case: tuple[AttackSide, TargetUnit]) -> None:
    side, target = case
    r = compute_matchups([side, more_uses(side)], [target])
    for p in range(2):
        dist = r.slain_dist[p]
        assert len(dist) == target.models + 1  # models slain never exceed the models
        assert np.all(dist >= -1e-15)
        assert abs(dist.sum() - 1.0) < 1e-9
        assert -1e-9 <= r.wounds_lost[p] <= target.total_wounds + 1e-9
        assert r.p_wipe[p] <= r.p_any[p] + 1e-12
        assert r.slain_p10[p] <= r.slain_p50[p] <= r.slain_p90[p] <= target.models
        assert 0 <= r.points_destroyed[p] <= target.points + 1e-9
    assert r.expected_slain[1] >= r.expected_slain[0] - 1e-9  # more attacks never fewer expected kills
    assert r.wounds_lost[1] >= r.wounds_lost[0] - 1e-9
