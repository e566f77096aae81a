"""`scenario_reads.changes`: a weapon it calls unchanged by a scenario gets the base scenario's bits (so
`unit_vs_reference` may copy those rows), and each weapon it calls changed is changed in some matchup."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from pipeline.units import AttackEntry, AttackSide, Phase, TargetUnit, compute_matchups
from pipeline.units.results import Matchups
from pipeline.units.scenario_reads import changes, is_base, side_changes
from schemas.dice import parse_dice
from tests.units.builders import group, side, weapon
from tests.units.test_fast_path import COLUMNS, targets
from tests.units.test_invariants import weapons

OTHERS = [name for name, s in SCENARIO_DEFINITIONS.items() if not is_base(s)]


@st.composite
def scenario_weapons(draw: Any, ranged: bool) -> Any:
    """`test_invariants.weapons` with the abilities scenarios switch, each drawn on or off."""
    dice = st.sampled_from([None, None, "1", "D3"])
    rapid_fire, melta = draw(dice), draw(dice)
    return replace(
        draw(weapons(ranged)),
        rapid_fire=None if rapid_fire is None else parse_dice(rapid_fire),
        melta=None if melta is None else parse_dice(melta),
        lance=draw(st.booleans()),
        heavy=draw(st.booleans()),
        ignores_cover=draw(st.booleans()),
        indirect_fire=draw(st.booleans()),
    )


def _same_bits(one: Matchups, other: Matchups) -> None:
    for name in COLUMNS:
        assert np.asarray(getattr(one, name)).tobytes() == np.asarray(getattr(other, name)).tobytes(), name
    for a, b in zip(one.slain_dist, other.slain_dist, strict=True):
        assert a.tobytes() == b.tobytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranged=st.booleans(), data=st.data())
def test_a_side_no_scenario_changes_gets_the_base_scenarios_bits(ranged: bool, data: Any) -> None:
    entries = tuple(
        AttackEntry(data.draw(st.integers(1, 5)), (data.draw(scenario_weapons(ranged)),))
        for _ in range(data.draw(st.integers(1, 3)))
    )
    attacker = AttackSide(entries, Phase.SHOOTING if ranged else Phase.FIGHT, points=90.0)
    defenders = [data.draw(targets()) for _ in range(data.draw(st.integers(1, 3)))]
    base = compute_matchups([attacker], defenders, scenario="default", operators=False)
    for name in OTHERS:
        if not side_changes(attacker, SCENARIO_DEFINITIONS[name]):
            _same_bits(compute_matchups([attacker], defenders, scenario=name, operators=False), base)


MEQ = TargetUnit((group(5, save=4),))  # a 4+ save, so cover and AP both count


@pytest.mark.parametrize(
    ("stats", "scenario", "changed"),
    [
        pytest.param({}, "half_range", False, id="bolter-half-range"),
        pytest.param({"rapid_fire": "1"}, "half_range", True, id="rapid-fire-half-range"),
        pytest.param({"melta": "2"}, "half_range", True, id="melta-half-range"),
        pytest.param({"rapid_fire": "1"}, "stationary", False, id="rapid-fire-stationary"),
        pytest.param({"heavy": True}, "stationary", True, id="heavy-stationary"),
        pytest.param({"ranged": False, "lance": True, "strength": "6"}, "charged", True, id="lance-charged"),
        pytest.param({"lance": True}, "stationary", False, id="lance-stationary"),
        pytest.param({}, "cover", True, id="ranged-cover"),
        pytest.param({"ignores_cover": True}, "cover", False, id="ignores-cover"),
        pytest.param({"ranged": False}, "cover", False, id="melee-cover"),
        pytest.param({}, "indirect", True, id="ranged-unseen"),
        pytest.param({"ranged": False}, "indirect", False, id="melee-unseen"),
    ],
)
def test_changes_says_what_the_engine_does(stats: dict[str, Any], scenario: str, changed: bool) -> None:
    shooter = weapon("w", attacks="4", ap=-1, **stats)
    attacker = side((5, shooter))
    assert changes(shooter, SCENARIO_DEFINITIONS[scenario]) is changed
    own = compute_matchups([attacker], [MEQ], scenario=scenario, operators=False)
    base = compute_matchups([attacker], [MEQ], scenario="default", operators=False)
    assert bool(own.expected_slain[0] != base.expected_slain[0]) is changed


def test_only_the_scenario_with_every_flag_off_is_the_base() -> None:
    assert [name for name, s in SCENARIO_DEFINITIONS.items() if is_base(s)] == ["default"]
