"""`unit_vs_reference` computes in each scenario only the options it changes and copies the others' rows from
the base scenario (docs/units.md#scenarios-computed-once): on a real catalogue, the tables are those of every
option computed in every scenario, and the options computed are the ones whose weapons the scenario reads."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from pipeline import config
from pipeline.damage.reference import reference_targets_frame
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.reference import _computed_options, _phase_table, _scenario_tables, reference_units
from pipeline.matchups.sides import UnitOption
from pipeline.matchups.stage import matchup_options
from pipeline.units.model import Phase
from tests.matchups.test_fork_executor import _frames

CATALOGUE = "Chaos - World Eaters.cat"
SCENARIOS = config.MATCHUP_REFERENCE_SCENARIOS


@pytest.fixture(scope="module")
def golden(bsdata_dir: Path) -> list[UnitOption]:
    return [o for o in matchup_options(_frames([bsdata_dir / CATALOGUE])) if "+" not in o.unit_id]


@pytest.fixture(scope="module")
def references() -> list[UnitOption]:
    return reference_units(reference_targets_frame().to_dicts())


def _every_option_computed(golden: list[UnitOption], references: list[UnitOption]) -> list[pa.Table]:
    tasks = [(s, p) for s in SCENARIOS for p in Phase]
    tables = dict(ForkExecutor(2).map(lambda k: _phase_table(golden, references, *k), tasks))
    return [table for task in tasks if (table := tables[task]) is not None]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_tables_are_those_of_every_option_computed(
    golden: list[UnitOption], references: list[UnitOption], workers: int
) -> None:
    shared = _scenario_tables(golden, references, SCENARIOS, workers)
    whole = _every_option_computed(golden, references)
    assert [t.num_rows for t in shared] == [t.num_rows for t in whole] == [54 * 32, 65 * 32] * 5
    for one, other in zip(shared, whole, strict=True):
        assert one.equals(other)
        assert [c.num_chunks for c in one.columns] == [1] * one.num_columns


# armed options (shooting, fight) 54 and 65; computed per scenario, read from the catalogue's weapon keywords
COMPUTED = {
    ("half_range", Phase.SHOOTING): 17,  # Rapid Fire or Melta
    ("charged", Phase.FIGHT): 5,  # Lance: the Bladed horn of Bloodcrushers (3 and 6), Goremongers, two Lords
    ("stationary", Phase.SHOOTING): 3,  # Heavy
    ("cover", Phase.SHOOTING): 50,  # ranged, without Ignores Cover
}


@pytest.mark.parametrize("scenario", SCENARIOS[1:])
@pytest.mark.parametrize("phase", list(Phase))
def test_a_scenario_computes_the_options_it_changes(golden: list[UnitOption], scenario: str, phase: Phase) -> None:
    computed = [golden[i] for i in _computed_options(golden, phase, scenario)]
    assert len(computed) == COMPUTED.get((scenario, phase), 0)
    if (scenario, phase) == ("charged", Phase.FIGHT):
        assert sorted((o.unit_id.rpartition(":")[2], o.models) for o in computed) == [
            ("bloodcrushers", 3), ("bloodcrushers", 6), ("goremongers", 8), ("lord-invocatus", 1),
            ("lord-on-juggernaut", 1),
        ]  # fmt: skip
    assert len(_computed_options(golden, phase, None)) == {Phase.SHOOTING: 54, Phase.FIGHT: 65}[phase]
