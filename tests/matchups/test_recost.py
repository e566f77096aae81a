"""Re-costing a `unit_matchups` file from its basis (`pipeline/matchups/recost.py`): today's costs through the
engine's own formula, the same bytes as computing, and a basis that does not fit refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pipeline.matchups.pair_table import read_file, write_file
from pipeline.matchups.partition import MatchupInputs, computed_parts, parquet_bytes
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
    assert _bytes(again) == _bytes(fresh) and parquet_bytes(basis) == parquet_bytes(fresh_basis)
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


def test_a_basis_naming_other_options_for_its_rows_is_refused() -> None:
    """The basis's option indices are checked against every row's id and models, not trusted."""
    inputs = _inputs((100.0, 10.0))
    table, basis = _part(inputs)
    attackers, targets = _options(inputs, "b")
    target = basis["target"].to_numpy()
    assert sorted(set(target.tolist())) == [0, 1]  # both of faction b's targets appear
    swapped = basis.set_column(basis.schema.get_field_index("target"), "target", pa.array(1 - target, pa.int32()))
    with pytest.raises(BasisMismatch, match="target is not one of the file's options"):
        recost(table, swapped, attackers, targets)
    with pytest.raises(BasisMismatch, match="without the columns"):
        recost(table, basis.drop_columns(["attacker"]), attackers, targets)


def test_a_file_read_back_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    """Ids dictionary-encoded in order of first appearance: what `read_file` gives back writes the same bytes,
    and every reader sees plain strings."""
    part, _ = _part(_inputs((100.0, 10.0)))
    table = pa.concat_tables([part] * (300_000 // part.num_rows))  # read back in several batches
    path = tmp_path / "part.parquet"
    write_file(table, str(path))
    again, read = tmp_path / "again.parquet", read_file(path)
    assert read["target_unit_id"].num_chunks > 1 and pa.types.is_dictionary(read["target_unit_id"].type)
    write_file(read, str(again))
    assert again.read_bytes() == path.read_bytes()
    plain = pq.read_table(path)
    assert plain.schema.field("target_unit_id").type == pa.string() and plain.equals(table)
