"""`unit_vs_reference`'s computed (scenario, phase) tables split into one piece per attacker faction: each
faction's rows in table order then row order, whether a table holds a faction's rows together (slices) or
not (filters)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from pipeline.matchups.reference import _by_faction

SCHEMA = pa.schema([("attacker_faction", pa.string()), ("row", pa.int64()), ("slain_dist", pa.list_(pa.float64()))])


def _table(factions: list[str], first: int) -> pa.Table:
    rows = list(range(first, first + len(factions)))
    dists = [[0.5, 0.5]] * len(factions)
    return pa.table({"attacker_faction": factions, "row": rows, "slain_dist": dists}, schema=SCHEMA)


def _filtered(tables: list[pa.Table], faction: str) -> list[int]:
    return [r for t in tables for r in t.filter(pc.equal(t["attacker_faction"], faction))["row"].to_pylist()]


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param([["orks", "orks", "tau"], ["orks", "tau", "tau"]], id="runs"),  # each faction together
        pytest.param([["tau", "orks", "tau"], ["orks"]], id="interleaved"),  # a faction in two runs: filters
        pytest.param([[], ["tau"]], id="an-empty-table"),
    ],
)
def test_each_faction_gets_its_rows_in_table_then_row_order(layout: list[list[str]]) -> None:
    tables, first = [], 0
    for factions in layout:
        tables.append(_table(factions, first))
        first += len(factions)
    pieces = _by_faction(tables, ["necrons", "orks", "tau"])
    assert list(pieces) == ["necrons", "orks", "tau"]
    for faction, piece in pieces.items():
        assert piece["row"].to_pylist() == _filtered(tables, faction)
        assert set(piece["attacker_faction"].to_pylist()) <= {faction}
        assert piece.schema == tables[0].schema
    assert pieces["necrons"].num_rows == 0  # no attacker of that faction: an empty piece of the same columns


def test_the_runs_layout_reads_the_expected_rows() -> None:
    pieces = _by_faction([_table(["orks", "orks", "tau"], 0), _table(["orks", "tau", "tau"], 3)], ["orks", "tau"])
    assert pieces["orks"]["row"].to_pylist() == [0, 1, 3]
    assert pieces["tau"]["row"].to_pylist() == [2, 4, 5]
