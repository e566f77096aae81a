"""A `unit_matchups` file whose pairs changed in cost alone, made again from its cached basis: the last file of
the same basis key (every column but the points ones is the same) and, per row, its options and the expected
models slain per model group of its target (`pair_table.points_basis`), with the options' current costs,
through the engine's own formula (`units.results.points_destroyed`), so the bytes are those a computation
would write (docs/units.md#incremental-files-and-pieces-cached-by-content).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.matchups.pair_table import BASIS_SIDES, basis_groups, points_arrays
from pipeline.matchups.sides import UnitOption
from pipeline.units.model import Phase
from pipeline.units.results import per_100_points, points_destroyed

POINTS_COLUMNS = ("points_destroyed", "points_destroyed_per_100")


class BasisMismatch(ValueError):
    """The cached basis does not fit the file or the options (never trusted: the file is computed)."""


def recost(
    table: pa.Table, basis: pa.Table, attackers: Sequence[UnitOption], targets: Sequence[UnitOption]
) -> pa.Table:
    """`table` (a file of `attackers` against `targets`) with its points columns from these options' costs."""
    if basis.num_rows != table.num_rows:
        raise BasisMismatch(f"{basis.num_rows} basis rows for {table.num_rows} rows")
    if not set(BASIS_SIDES) <= set(basis.column_names):
        raise BasisMismatch(f"a basis without the columns {BASIS_SIDES}")
    a = _checked_index(table, basis, "attacker", attackers)
    t = _checked_index(table, basis, "target", targets)
    shooting = pc.equal(table["phase"], Phase.SHOOTING.value).to_numpy(zero_copy_only=False)
    side_cost = {p: np.array([o.sides[p].points if p in o.sides else np.nan for o in attackers]) for p in Phase}
    attacker_cost = np.where(shooting, side_cost[Phase.SHOOTING][a], side_cost[Phase.FIGHT][a])
    slain = basis_groups(basis)
    costs = _group_costs(targets, len(slain))
    points = points_destroyed(slain, [costs[:, g][t] for g in range(len(slain))], table.num_rows)
    has_cost = np.array([o.cost > 0 for o in targets], dtype=bool)[t]
    arrays = points_arrays(points, per_100_points(points, attacker_cost), has_cost)
    for name, array in zip(POINTS_COLUMNS, arrays, strict=True):
        index = table.schema.get_field_index(name)
        table = table.set_column(index, table.schema.field(index), array)
    return table


def _checked_index(table: pa.Table, basis: pa.Table, side: str, options: Sequence[UnitOption]) -> npt.NDArray[np.int64]:
    """Each row's option on one side, as the basis lists it, checked against every row's id and models (one
    gather each: the ids compared as dictionary codes, no text per row)."""
    index: npt.NDArray[np.int64] = basis[side].to_numpy().astype(np.int64)
    if index.size and (index.min() < 0 or index.max() >= len(options)):
        raise BasisMismatch(f"a row's {side} is not one of the file's options")
    ids = table[f"{side}_unit_id"].combine_chunks()
    if not pa.types.is_dictionary(ids.type):
        ids = pc.dictionary_encode(ids)
    code = {name: i for i, name in enumerate(ids.dictionary.to_pylist())}
    codes = np.array([code.get(o.unit_id, -1) for o in options], dtype=np.int64)
    models = np.array([o.models for o in options], dtype=np.int64)
    same_ids = np.array_equal(codes[index], ids.indices.to_numpy(zero_copy_only=False))
    if not (same_ids and np.array_equal(models[index], table[f"{side}_models"].to_numpy())):
        raise BasisMismatch(f"a row's {side} is not one of the file's options")
    return index


def _group_costs(targets: Sequence[UnitOption], groups: int) -> npt.NDArray[np.float64]:
    """[target, group] the cost of one model of each group (zero beyond the target's groups)."""
    costs = np.zeros((len(targets), groups))
    for i, option in enumerate(targets):
        points = [g.points for g in option.target.all_groups] if option.target is not None else []
        costs[i, : min(groups, len(points))] = points[:groups]
    return costs
