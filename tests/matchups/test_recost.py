"""Re-costing a `unit_matchups` file from its basis (`pipeline/matchups/recost.py`): today's costs through the
engine's own formula, the same bytes as computing, and a basis that does not fit refused."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from pipeline.matchups.partition import MatchupInputs, computed_parts
from pipeline.matchups.recost import BasisMismatch, recost
from pipeline.matchups.sides import UnitOption
from tests.matchups.test_incremental import _bytes, _option


def _inputs(costs: tuple[float, float]) -> MatchupInputs:
    """Two factions of two units each (5 and 10 models); faction B's 10-model unit costs `costs[1]` a model."""
    a5, a10, b5 = _option("unit:a:squad", "A", 5), _option("unit:a:mob", "A", 10), _option("unit:b:squad", "B", 5)
    b10 = _option("unit:b:mob", "B", 10, toughness=4)
    target = b10.target
    assert target is not None
    groups = tuple(replace(g, points=costs[1]) for g in target.groups)
    shooting = {p: replace(s, points=costs[0]) for p, s in b10.sides.items()}
    b10 = replace(b10, cost=costs[1] * 10, target=replace(target, groups=groups), sides=shooting)
    return MatchupInputs([a5, a10, b5, b10])


def _part(inputs: MatchupInputs, faction: str = "b") -> tuple[pa.Table, pa.Table]:
    (key,) = [k for k in inputs.keys(["default"]) if k.attacker_faction == "b"]
    part = computed_parts(inputs, replace(key, target_factions=(faction,), basis_keys=("x",)))[faction]
    assert part.basis is not None
    return part.table, part.basis


def _options(inputs: MatchupInputs, faction: str) -> tuple[list[UnitOption], list[UnitOption]]:
    (key,) = [k for k in inputs.keys(["default"]) if k.attacker_faction == "b"]
    return inputs.chunk_attackers(key), [inputs.targets[i] for i in inputs.faction_targets(faction).tolist()]


@pytest.mark.parametrize("costs", [(150.0, 12.0), (0.0, 0.0), (1.0, 7.5)])
def test_recosting_gives_the_bytes_of_computing_with_the_new_costs(costs: tuple[float, float]) -> None:
    before, after = _inputs((100.0, 10.0)), _inputs(costs)
    table, basis = _part(before)
    fresh, fresh_basis = _part(after)
    again = recost(table, basis, *_options(after, "b"))
    assert _bytes(again) == _bytes(fresh) and _bytes(basis) == _bytes(fresh_basis)
    assert _bytes(again) != _bytes(table)
    mob = again.filter(pc.equal(again["target_unit_id"], "unit:b:mob"))
    assert mob.num_rows == 2 and (mob["points_destroyed"].null_count == 2) == (costs[1] == 0.0)


def test_a_basis_that_does_not_fit_is_refused() -> None:
    inputs = _inputs((100.0, 10.0))
    table, basis = _part(inputs)
    attackers, targets = _options(inputs, "b")
    with pytest.raises(BasisMismatch, match="basis rows"):
        recost(table, basis.slice(1), attackers, targets)
    with pytest.raises(BasisMismatch, match="target is not one of the file's options"):
        recost(table, basis, attackers, targets[:1])
    with pytest.raises(BasisMismatch, match="attacker is not one of the file's options"):
        recost(table, basis, attackers[1:], targets)
