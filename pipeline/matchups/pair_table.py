"""The published rows of unit-against-unit pairs, as Arrow tables built from the engine's NumPy arrays.

A chunk's rows are split by target faction before any Arrow array exists: every column of a faction's table is
gathered from the engine's arrays by that faction's row numbers (ids from small Arrow arrays of the options), so
no chunk-sized table is built and then gathered again (docs/units.md#partitions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.matchups.sides import UnitOption
from pipeline.units.model import Phase
from pipeline.units.results import Matchups

SCHEMA = pa.schema(
    [
        ("attacker_unit_id", pa.string()),
        ("attacker_models", pa.int64()),
        ("target_unit_id", pa.string()),
        ("target_models", pa.int64()),
        ("phase", pa.string()),
        ("models_slain", pa.float64()),
        ("p_any", pa.float64()),
        ("p_wipe", pa.float64()),
        ("slain_p10", pa.int64()),
        ("slain_p50", pa.int64()),
        ("slain_p90", pa.int64()),
        ("wounds_lost", pa.float64()),
        ("target_wounds", pa.int64()),
        ("points_destroyed", pa.float64()),
        ("points_destroyed_per_100", pa.float64()),
    ]
)
DIST_FIELD = pa.field("slain_dist", pa.list_(pa.float64()))

#: The text columns (few distinct ids) and every column but the measures: those dictionary-encoded in files.
TEXT_COLUMNS = [f.name for f in SCHEMA if pa.types.is_string(f.type)]
KEYS = [f.name for f in SCHEMA if not pa.types.is_floating(f.type)]

#: A basis's columns of each row's attacker and target option (`points_basis`).
BASIS_SIDES = ("attacker", "target")

Rows = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PhaseRows:
    """One phase's engine result against a call's targets, its attackers, and the pairs (row numbers of the
    result, ascending) a table takes."""

    phase: Phase
    result: Matchups
    attackers: Sequence[UnitOption]
    rows: Rows

    def values(self, array: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        return array[self.rows]


def table_schema(dist: bool) -> pa.Schema:
    """The published columns, with `slain_dist` when distributions are kept."""
    return SCHEMA.append(DIST_FIELD) if dist else SCHEMA


def matchup_table(
    result: Matchups, attackers: Sequence[UnitOption], targets: Sequence[UnitOption], phase: Phase, dist: bool
) -> pa.Table:
    """Every pair of one phase's result, in the result's order."""
    every = np.arange(len(result.pairs), dtype=np.int64)
    return phases_table([PhaseRows(phase, result, attackers, every)], targets, dist)


def phases_table(parts: Sequence[PhaseRows], targets: Sequence[UnitOption], dist: bool) -> pa.Table:
    """The selected pairs of each phase, phase after phase, as one table of one chunk a column."""
    if not parts:
        return table_schema(dist).empty_table()

    def gathered(array_of: Callable[[Matchups], npt.NDArray[np.generic]]) -> npt.NDArray[np.generic]:
        return np.concatenate([part.values(array_of(part.result)) for part in parts])

    first = np.cumsum([0, *(len(part.attackers) for part in parts[:-1])])  # each phase's attackers, back to back
    a_index = [part.values(part.result.pairs[:, 0]) + f for part, f in zip(parts, first, strict=True)]
    a = pa.array(np.concatenate(a_index))
    t_index = gathered(lambda r: r.pairs[:, 1])
    t = pa.array(t_index)
    attackers = [o for part in parts for o in part.attackers]
    phase_of_row = np.repeat(np.arange(len(parts)), [len(part.rows) for part in parts])
    wounds = np.array([o.target.total_wounds if o.target else 0 for o in targets], dtype=np.int64)
    has_cost = np.array([o.cost > 0 for o in targets], dtype=bool)[t_index]
    points, per_100 = points_arrays(
        gathered(lambda r: r.points_destroyed), gathered(lambda r: r.points_destroyed_per_100), has_cost
    )
    columns: list[pa.Array] = [
        pa.array([o.unit_id for o in attackers], type=pa.string()).take(a),
        pa.array([o.models for o in attackers], type=pa.int64()).take(a),
        pa.array([o.unit_id for o in targets], type=pa.string()).take(t),
        pa.array([o.models for o in targets], type=pa.int64()).take(t),
        pa.array([part.phase.value for part in parts], type=pa.string()).take(pa.array(phase_of_row)),
        pa.array(gathered(lambda r: r.expected_slain)),
        pa.array(np.clip(gathered(lambda r: r.p_any), 0.0, 1.0)),
        pa.array(np.clip(gathered(lambda r: r.p_wipe), 0.0, 1.0)),
        pa.array(gathered(lambda r: r.slain_p10)),
        pa.array(gathered(lambda r: r.slain_p50)),
        pa.array(gathered(lambda r: r.slain_p90)),
        pa.array(gathered(lambda r: r.wounds_lost)),
        pa.array(wounds[t_index]),
        points,
        per_100,
    ]
    if dist:
        columns.append(pa.concat_arrays([distribution_column(part.result, part.rows) for part in parts]))
    return pa.Table.from_arrays(columns, schema=table_schema(dist))


def points_arrays(
    points: npt.NDArray[np.generic], per_100: npt.NDArray[np.generic], has_cost: npt.NDArray[np.bool_]
) -> tuple[pa.Array, pa.Array]:
    """`points_destroyed` and `points_destroyed_per_100` as published: null where the target costs nothing,
    per 100 also where the attacker does (the engine's NaN)."""
    return pa.array(points, mask=~has_cost), pa.array(per_100, mask=~has_cost | np.isnan(per_100))


def points_basis(
    parts: Sequence[PhaseRows],
    targets: Sequence[UnitOption],
    by_group: Sequence[npt.NDArray[np.float64]],
    sides: tuple[Rows, Rows],
) -> pa.Table:
    """Per row of `phases_table(parts, targets, ...)`, the expected models slain of each model group of the
    target (`g0`, `g1`, ... up to the most groups a row's target has; a group beyond a row's own costs nothing,
    so it adds nothing): with the options' costs they give the points columns again (`matchups/recost.py`), so
    a file whose pairs changed in cost only is not computed again. `by_group`: per part, its result's
    `job_slain_by_group` transposed (`slain_by_group_rows`), shared by every file of a call. `sides`: each
    row's attacker and target as indices into the options the basis key lists (`BASIS_SIDES` columns), so
    re-costing looks no id up."""
    groups = np.array([len(o.target.all_groups) if o.target else 0 for o in targets], dtype=np.int64)
    width = max([int(groups[p.result.pairs[p.rows, 1]].max(initial=0)) for p in parts] or [0])
    jobs = [p.result.job[p.rows] for p in parts]
    columns = [
        pa.array(np.concatenate([g_rows[g][j] if g < len(g_rows) else np.zeros(len(j)) for g_rows, j in
                                 zip(by_group, jobs, strict=True)]), type=pa.float64())
        for g in range(width)
    ]  # fmt: skip
    columns += [pa.array(index, type=pa.int32()) for index in sides]
    return pa.Table.from_arrays(columns, names=[*(f"g{g}" for g in range(width)), *BASIS_SIDES])


def basis_groups(basis: pa.Table) -> list[npt.NDArray[np.float64]]:
    """A basis's expected slain per group (`g0`, `g1`, ...), in group order."""
    return [basis[name].to_numpy() for name in basis.column_names if name not in BASIS_SIDES]


def write_file(table: pa.Table, where: str | pa.NativeFile | BinaryIO) -> None:
    """One `unit_matchups` file, as every path (computed or re-costed) writes it: its text columns dictionary
    encoded in order of first appearance (a re-costed file reads them back so, `read_file`, and writes the same
    bytes without hashing a string again), no dictionary tried on the measures (distinct doubles: slower to
    write and to read, and larger)."""
    pq.write_table(dictionary_encoded(table), where, compression="zstd", store_schema=False, use_dictionary=KEYS)


def read_file(path: str | Path) -> pa.Table:
    """A `unit_matchups` file as `write_file` writes it again byte for byte (text columns as dictionaries)."""
    return pq.read_table(path, read_dictionary=TEXT_COLUMNS)


def dictionary_encoded(table: pa.Table) -> pa.Table:
    """`table` with its text columns as dictionaries in order of first appearance, one per column (as read back
    from such a file: its batches share the file's dictionary)."""
    for name in TEXT_COLUMNS:
        index = table.schema.get_field_index(name)
        column = table.column(index)
        if not _one_dictionary(column):
            column = pc.dictionary_encode(column.cast(pa.string()).combine_chunks())
        table = table.set_column(index, pa.field(name, column.type), column)
    return table


def _one_dictionary(column: pa.ChunkedArray) -> bool:
    if not pa.types.is_dictionary(column.type) or column.num_chunks == 0:
        return False
    first = column.chunk(0).dictionary
    return all(chunk.dictionary.equals(first) for chunk in column.chunks[1:])


def slain_by_group_rows(result: Matchups) -> npt.NDArray[np.float64]:
    """The result's expected slain per group and job as one contiguous row per group."""
    rows: npt.NDArray[np.float64] = np.ascontiguousarray(result.job_slain_by_group.T)
    return rows


def distribution_column(result: Matchups, rows: Rows) -> pa.Array:
    """`slain_dist` of the pairs `rows`: each distinct job's row as one list, taken per pair (no Python list per
    row)."""
    lengths = result.job_models + 1
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    keep = np.arange(result.job_dist.shape[1])[None, :] < lengths[:, None]
    values = pa.array(result.job_dist[keep])
    per_job = pa.ListArray.from_arrays(pa.array(offsets), values, type=DIST_FIELD.type)
    return per_job.take(pa.array(result.job[rows]))
