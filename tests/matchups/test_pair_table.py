"""`pipeline/matchups/pair_table.py`: a table of selected pairs gathered from the engine's arrays is the table of
every pair, taken at those rows (Arrow's own gather, the way the chunks were split before)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

from pipeline.matchups.pair_table import DIST_FIELD, SCHEMA, PhaseRows, matchup_table, phases_table
from pipeline.matchups.sides import UnitOption
from pipeline.units.engine import UnitEngine, compute_matchups
from pipeline.units.model import Phase
from tests.matchups.test_fork_executor import options  # noqa: F401  (the fixture: one real catalogue's options)

ALL = np.zeros(0, np.int64)


@pytest.fixture(scope="module")
def phases(options: list[UnitOption]) -> tuple[list[PhaseRows], list[UnitOption]]:  # noqa: F811
    """Both phases of every option of one real catalogue against every target with a defence, with distributions."""
    targets = [o for o in options if o.target is not None]
    found = []
    for phase in Phase:
        armed = [o for o in options if phase in o.sides]
        defences = [t.target for t in targets if t.target]
        result = compute_matchups([o.sides[phase] for o in armed], defences, engine=UnitEngine(), operators=False)
        found.append(PhaseRows(phase, result, armed, np.arange(len(result.pairs), dtype=np.int64)))
    return found, targets


def _whole(parts: list[PhaseRows], targets: list[UnitOption]) -> pa.Table:
    tables = [matchup_table(p.result, p.attackers, targets, p.phase, dist=True) for p in parts]
    return pa.concat_tables(tables).combine_chunks()


def test_both_phases_every_row_is_the_phase_tables_one_after_the_other(
    phases: tuple[list[PhaseRows], list[UnitOption]],
) -> None:
    parts, targets = phases
    assert [p.phase for p in parts] == [Phase.SHOOTING, Phase.FIGHT] and all(len(p.rows) > 100 for p in parts)
    table = phases_table(parts, targets, dist=True)
    assert table.equals(_whole(parts, targets))
    assert table.column("phase").to_pylist() == ["shooting"] * len(parts[0].rows) + ["fight"] * len(parts[1].rows)
    assert all(column.num_chunks == 1 for column in table.columns)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_selected_rows_are_the_whole_table_taken_at_them(
    phases: tuple[list[PhaseRows], list[UnitOption]], seed: int
) -> None:
    parts, targets = phases
    random = np.random.default_rng(seed)
    picked = [np.flatnonzero(random.random(len(p.rows)) < 0.1) for p in parts]
    offset = len(parts[0].rows)
    expected = _whole(parts, targets).take(pa.array(np.concatenate([picked[0], picked[1] + offset])))
    table = phases_table([replace(p, rows=r) for p, r in zip(parts, picked, strict=True)], targets, dist=True)
    assert table.num_rows == sum(len(r) for r in picked) > 0
    assert table.equals(expected)


def test_no_rows_or_no_phase_gives_an_empty_table_with_the_schema(
    phases: tuple[list[PhaseRows], list[UnitOption]],
) -> None:
    parts, targets = phases
    assert phases_table([replace(p, rows=ALL) for p in parts], targets, dist=False).schema == SCHEMA
    assert phases_table([replace(p, rows=ALL) for p in parts], targets, dist=False).num_rows == 0
    assert phases_table([], targets, dist=True).schema == SCHEMA.append(DIST_FIELD)
