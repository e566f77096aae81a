"""A `unit_matchups` file whose pairs changed in cost alone, made again from its cached basis: the last file of
the same basis key (every column but the points ones is the same) and the expected models slain per model
group of each row's target (`pair_table.points_basis`), with the options' current costs, through the engine's
own formula (`units.results.points_destroyed`), so the bytes are those a computation would write
(docs/units.md#incremental-files-and-pieces-cached-by-content).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.matchups.pair_table import points_arrays
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
    a = _row_index(table, "attacker", attackers)
    t = _row_index(table, "target", targets)
    shooting = pc.equal(table["phase"], Phase.SHOOTING.value).to_numpy(zero_copy_only=False)
    side_cost = {p: np.array([o.sides[p].points if p in o.sides else np.nan for o in attackers]) for p in Phase}
    attacker_cost = np.where(shooting, side_cost[Phase.SHOOTING][a], side_cost[Phase.FIGHT][a])
    costs = _group_costs(targets, basis.num_columns)
    slain = [basis.column(g).to_numpy() for g in range(basis.num_columns)]
    points = points_destroyed(slain, [costs[:, g][t] for g in range(basis.num_columns)], table.num_rows)
    has_cost = np.array([o.cost > 0 for o in targets], dtype=bool)[t]
    arrays = points_arrays(points, per_100_points(points, attacker_cost), has_cost)
    for name, array in zip(POINTS_COLUMNS, arrays, strict=True):
        index = table.schema.get_field_index(name)
        table = table.set_column(index, table.schema.field(index), array)
    return table


def _row_index(table: pa.Table, side: str, options: Sequence[UnitOption]) -> npt.NDArray[np.int64]:
    """Each row's option on one side, by (unit id, models): unique per option (`unit_points`' key). Looked up
    once per distinct pair (the ids dictionary-encoded, no text per row)."""
    ids = pc.dictionary_encode(table[f"{side}_unit_id"]).combine_chunks()
    models = table[f"{side}_models"].to_numpy()
    names, width = ids.dictionary.to_pylist(), int(models.max(initial=0)) + 1
    codes = ids.indices.to_numpy(zero_copy_only=False).astype(np.int64) * width + models
    distinct, inverse = np.unique(codes, return_inverse=True)
    wanted = {(o.unit_id, o.models): i for i, o in enumerate(options)}
    found = [wanted.get((names[int(c) // width], int(c) % width), -1) for c in distinct.tolist()]
    if -1 in found:
        raise BasisMismatch(f"a row's {side} is not one of the file's options")
    index: npt.NDArray[np.int64] = np.asarray(found, dtype=np.int64)[inverse]
    return index


def _group_costs(targets: Sequence[UnitOption], groups: int) -> npt.NDArray[np.float64]:
    """[target, group] the cost of one model of each group (zero beyond the target's groups)."""
    costs = np.zeros((len(targets), groups))
    for i, option in enumerate(targets):
        points = [g.points for g in option.target.all_groups] if option.target is not None else []
        costs[i, : min(groups, len(points))] = points[:groups]
    return costs
