"""`unit_vs_reference` solves each reference profile's 1, 5, 10 and 20 models as one defence family
(docs/units.md#defence-families): every row must equal that size solved alone, Blast included."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.damage.reference import reference_targets_frame
from pipeline.matchups.reference import REFERENCE_SIZES, reference_units, unit_vs_reference
from pipeline.matchups.sides import UnitOption
from pipeline.units import Phase, compute_matchups
from tests.units.builders import side, weapon

SHOOTING = side(
    (3, weapon("dw", attacks="2", skill=3, strength="5", ap=-1, damage="D3", devastating_wounds=True)),
    (2, weapon("frag", attacks="D6", skill=4, strength="4", damage="1", blast=True)),
    (5, weapon("bolt", attacks="2", skill=3, strength="4", damage="1")),
    points=100.0,
)
FIGHT = side(
    (4, weapon("blade", ranged=False, attacks="4", skill=3, strength="5", ap=-2, damage="2", precision=True)),
    (1, weapon("axe", ranged=False, attacks="3", skill=3, strength="8", ap=-2, damage="3", devastating_wounds=True)),
    points=100.0,
)
COLUMNS = ("models_slain", "p_any", "p_wipe", "slain_p10", "slain_p50", "slain_p90", "wounds_lost")


@pytest.mark.parametrize("scenario", ["default", "half_range"])
def test_every_reference_size_equals_the_size_solved_alone(scenario: str) -> None:
    references = reference_units(reference_targets_frame().to_dicts())
    option = UnitOption(
        "unit:test:squad", "Squad", "Test", 10, 100.0, None, {Phase.SHOOTING: SHOOTING, Phase.FIGHT: FIGHT}
    )
    table = unit_vs_reference([option], references, [scenario]).to_pydict()
    assert len(table["phase"]) == 2 * len(references) and len(references) == len(REFERENCE_SIZES) * 8
    for row, phase in enumerate(table["phase"]):
        reference = references[row % len(references)]
        assert reference.target is not None and table["target_models"][row] == reference.models
        alone = compute_matchups([option.sides[Phase(phase)]], [reference.target], scenario=scenario)
        np.testing.assert_allclose(table["slain_dist"][row], alone.slain_dist[0], rtol=0, atol=1e-12)
        values = (alone.expected_slain, alone.p_any, alone.p_wipe, alone.slain_p10, alone.slain_p50,
                  alone.slain_p90, alone.wounds_lost)  # fmt: skip
        for name, value in zip(COLUMNS, values, strict=True):
            assert table[name][row] == pytest.approx(float(value[0]), abs=1e-12), name
