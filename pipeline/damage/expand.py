"""From distinct results to every published cell.

The engine's results are laid out as `blocks`: for every effective weapon
profile one row of outputs against every distinct target key (`tkey`), not every
target: targets that share a key share a column, so memory follows the distinct
statlines, not the corpus. A scenario's matrix is then one gather per cell (row:
the weapon's effective key, column: the target's key), far cheaper than looking
up 11.6 M cells one by one.
"""

from __future__ import annotations

import threading
import typing
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from pipeline.cache.parts import PartCache, PlacedFile
from pipeline.damage.buffers import Buffers, reused, take_rows_columns
from pipeline.damage.effective import EffectiveWeapons
from pipeline.damage.engine import OUTPUTS, DamageKeys, distinct_plan
from pipeline.damage.matrix_files import PARQUET_DIR, file_ranges, fresh_scenario_dir, part_path
from pipeline.damage.matrix_key import MatrixDigest
from pipeline.damage.profiles import TargetProfiles
from pipeline.damage.report import DamageReport
from pipeline.damage.scenarios import Scenario
from pipeline.damage.unit_results import UNIT_OUTPUTS, UnitGrid
from pipeline.runtime import available_cpus
from schemas.records import DamageCell

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
CodeArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]


def _dense_columns(results: pl.DataFrame, n_weapons: int, n_targets: int) -> dict[str, FloatArray]:
    """Each output as an (effective weapon key, target key) array: the plan's rows are weapon-major
    in key order, so each column is that array as it stands (a zero-copy view when contiguous)."""
    if results.height != n_weapons * n_targets:
        raise ValueError(f"engine returned {results.height} rows for {n_weapons} x {n_targets} pairs")
    return {name: results[name].to_numpy().reshape(n_weapons, n_targets) for name in OUTPUTS}


#: CPUs used for Parquet writing at most (`writer_threads`).
MAX_WRITERS = 2

#: Up to this many scenarios are written all at once, one thread each (the threads share the CPUs, so no
#: core idles at the end: 5 scenarios on 2 writers took 3 rounds); more scenarios get `writer_threads()`.
MAX_SCENARIO_WRITERS = 8


def writer_threads() -> int:
    """Parquet writers: one per CPU available to the process, at most MAX_WRITERS."""
    return min(available_cpus(), MAX_WRITERS)


#: Matrix columns that may hold NULL (the `DamageCell` fields typed `... | None`); the others are REQUIRED.
NULLABLE_COLUMNS = frozenset(
    name for name, field in DamageCell.model_fields.items() if type(None) in typing.get_args(field.annotation)
)

#: Rows per Parquet row group (Polars' default): min/max statistics per group let DuckDB skip groups.
ROW_GROUP_ROWS = 512 * 512

#: Values the Parquet column writer takes per batch (Arrow's default: 1,024): one batch's statistics update,
#: level and dictionary-index calls cover 64 times more values; the file's bytes stay the same here.
WRITE_BATCH_ROWS = 64 * 1024

#: Rows per data page at most (Arrow's default: 20,000): 4 pages a column chunk instead of 14, so zstd sees
#: longer runs of equal cells (files ≈ 32 % smaller) for no more CPU (docs/damage.md#how-it-is-computed).
PAGE_ROWS = 64 * 1024

#: Effective weapon profiles per engine query: queries run in parallel (`pl.collect_all`).
CHUNK = 512


def plans_at_once() -> int:
    """Engine queries `build_blocks` runs at once: one per CPU (two at least). Their results are placed into
    the blocks before the next ones run, so the results of every query are never held at once
    (docs/scaling.md#partitions)."""
    return max(2, available_cpus())


def build_blocks(
    effective: EffectiveWeapons,
    targets: TargetProfiles,
    keys: DamageKeys,
    rows: BoolArray | None = None,
    columns: IntArray | None = None,
    into: dict[str, FloatArray] | None = None,
    at: IntArray | None = None,
) -> dict[str, FloatArray]:
    """output -> array [global effective key, target key `tkey`]. Weapons without Blast or Anti are computed
    per `tkey_base` (coarser), then spread to the `tkey` columns. `rows` (a mask of effective keys) and `columns`
    (target keys) limit what is computed; `into`: the arrays to fill (default: new ones, of every row and key),
    `at`: the column of `into` each of `columns` goes to (default: the key itself).
    A pair's results do not depend on the other pairs of its query, so a part gives the whole's bits."""
    n_keys = targets.profiles.height
    blocks = into if into is not None else {name: np.empty((effective.count, n_keys)) for name in OUTPUTS}
    base_of_key = base_keys(targets)
    wanted = np.arange(n_keys) if columns is None else columns
    placed = wanted if at is None else at
    plans, placements = [], []
    for group in effective.groups:
        frame, order = target_frame(group.name == "special", targets, base_of_key, columns)
        height = group.profiles.height
        local = np.arange(height) if rows is None else np.flatnonzero(rows[group.offset : group.offset + height])
        for start in range(0, len(local), CHUNK):
            picked = local[start : start + CHUNK]
            chunk = group.profiles[picked].with_columns(pl.Series("ekey", np.arange(len(picked)), pl.UInt32))
            plans.append(distinct_plan(chunk, frame, group.anti_keywords, keys))
            placements.append((group.offset + picked, frame.height, order))
    step = plans_at_once()
    for first in range(0, len(plans), step):
        batch = zip(pl.collect_all(plans[first : first + step]), placements[first : first + step], strict=True)
        for results, (found, n_frame, order) in batch:
            dense = _dense_columns(results, len(found), n_frame)
            whole = columns is None and found[-1] - found[0] == len(found) - 1  # consecutive rows, every key
            for name in OUTPUTS:
                if whole:
                    np.take(dense[name], order, axis=1, out=blocks[name][found[0] : found[-1] + 1])
                else:
                    blocks[name][np.ix_(found, placed)] = np.take(dense[name], order, axis=1)
    return blocks


def base_keys(targets: TargetProfiles) -> IntArray:
    """The base profile (`tkey_base`) of each target key (`tkey`)."""
    return targets.ids.unique("tkey").sort("tkey")["tkey_base"].cast(pl.Int64).to_numpy()


def target_frame(
    special: bool, targets: TargetProfiles, base_of_key: IntArray, columns: IntArray | None
) -> tuple[pl.DataFrame, IntArray]:
    """The targets a group's query crosses (every distinct profile for Blast and Anti, else the coarser base
    profiles), and the frame's row of each wanted target key."""
    if special:
        if columns is None:
            return targets.profiles, np.arange(targets.profiles.height)
        return targets.profiles[columns], np.arange(len(columns))
    base = targets.base.rename({"tkey_base": "tkey"})
    if columns is None:
        return base, base_of_key
    bases = np.unique(base_of_key[columns])
    return base[bases], np.searchsorted(bases, base_of_key[columns])


@dataclass
class BlockFill:
    """What `prepare_damage` left out of the blocks (docs/damage.md#files): the rows of the matrix files the
    cache held when it looked (every row's outputs at the reference profiles are in `ReferenceBlocks`). A row
    `whole` holds every key. `ensure` computes the rows a read needs and are missing, once (a file the cache
    held but could not place is written all the same)."""

    effective: EffectiveWeapons
    targets: TargetProfiles
    keys: DamageKeys
    whole: BoolArray
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ensure(self, blocks: dict[str, FloatArray], rows: IntArray) -> None:
        """`rows` readable at every key."""
        if self.whole[rows].all():
            return
        with self.lock:
            missing = np.zeros_like(self.whole)
            missing[rows] = True
            missing &= ~self.whole
            if missing.any():
                build_blocks(self.effective, self.targets, self.keys, rows=missing, into=blocks)
                self.whole |= missing


@dataclass(frozen=True)
class ReferenceBlocks:
    """Every effective row's outputs at a few target keys (the reference profiles'), apart from the blocks: a
    run that takes most matrix files from the cache computes no other cell of their rows, and these small
    arrays are read without touching the blocks' pages (docs/damage.md#reference-columns)."""

    columns: IntArray  # target keys, ascending
    values: dict[str, FloatArray]  # output -> [effective key, position in `columns`]

    def positions(self, keys: IntArray) -> IntArray | None:
        """Where each of `keys` lies in `columns`, or None when one is not there."""
        if not len(self.columns):
            return None
        at = np.minimum(np.searchsorted(self.columns, keys), len(self.columns) - 1)
        return at if bool((self.columns[at] == keys).all()) else None


class DamageComputation:
    """Everything needed to publish any requested scenario, without the 11.6 M-row frames."""

    def __init__(
        self,
        weapons: pl.DataFrame,
        targets: pl.DataFrame,
        blocks: dict[str, FloatArray],
        unit: UnitGrid,
        effective_keys: dict[str, IntArray],
        scenarios: Sequence[Scenario],
        report: DamageReport,
        digest: MatrixDigest | None = None,
        fill: BlockFill | None = None,
        reference: ReferenceBlocks | None = None,
    ) -> None:
        self.weapons = weapons  # weapon_id, wkey, cost_per_copy; publication order (wkey, weapon_id)
        self.targets = targets  # profile_id, tkey, tkey_base; publication order (tkey, profile_id)
        self.blocks = blocks
        self.unit = unit  # models_slain / wounds_lost, gathered per scenario
        self.effective_keys = effective_keys  # scenario -> effective key of each weapon row
        self.target_keys = targets["tkey"].cast(pl.Int64).to_numpy()  # block column of each target row
        self.scenarios = list(scenarios)
        self.report = report
        self.digest = digest  # of every engine input (matrix_key.py): None means never cached
        self.fill = fill  # the rows `blocks` lacks (None: it holds every row)
        self.reference = reference  # every row at the reference profiles' keys (None: read `blocks`)
        #: Enum types of weapon_id, profile_id, scenario: 4-byte codes in memory, strings to every
        #: reader (DuckDB, Parquet), and the cheapest id encoding for the Parquet writer. Categories
        #: are sorted, so sorting by an id column sorts the strings.
        self.id_types = (
            pl.Enum(weapons["weapon_id"].sort()),
            pl.Enum(targets["profile_id"].sort()),
            pl.Enum(sorted(s.name for s in self.scenarios)),
        )
        self._all_ids: pl.DataFrame | None = None
        self._arrow: tuple[Any, Any, FloatArray] | None = None
        self._target_cycle: CodeArray | None = None

    def _ids(self, targets: IntArray | None = None) -> pl.DataFrame:
        """(weapon_id, profile_id) of every cell, weapon-major: the cross join's row order.

        The full grid is built once and shared by every scenario's frame (frames are immutable).
        """
        if targets is None and self._all_ids is not None:
            return self._all_ids
        chosen = self.targets if targets is None else self.targets[targets]
        weapons = self.weapons.select(pl.col("weapon_id").cast(self.id_types[0]))
        ids = weapons.join(chosen.select(pl.col("profile_id").cast(self.id_types[1])), how="cross")
        if targets is None:
            self._all_ids = ids
        return ids

    def _frame(self, scenario: str, targets: IntArray | None) -> pl.DataFrame:
        """Gather one scenario's outputs (every target, or only `targets`), all in memory."""
        rows = self.effective_keys[scenario]
        columns = {}
        keys = self.target_keys if targets is None else self.target_keys[targets]
        at = self.reference.positions(keys) if targets is not None and self.reference is not None else None
        if at is None and self.fill is not None:
            self.fill.ensure(self.blocks, rows)
        source, picked = (self.blocks, keys) if at is None or self.reference is None else (self.reference.values, at)
        for name in OUTPUTS:
            columns[name] = source[name][np.ix_(rows, picked)].ravel()
        for name in UNIT_OUTPUTS:
            columns[name] = self.unit.gather(name, rows, targets, None).ravel()
        per_100 = 100.0 / self.weapons["cost_per_copy"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        width = self.targets.height if targets is None else len(targets)
        damage_per_100 = (columns["damage_capped"].reshape(len(rows), width) * per_100[:, None]).ravel()
        return self._ids(targets).with_columns(
            pl.lit(scenario, dtype=self.id_types[2]).alias("scenario"),
            *[pl.Series(name, columns[name]) for name in OUTPUTS],
            pl.Series("damage_per_100_points", damage_per_100, nan_to_null=True),
            *[pl.Series(name, columns[name]) for name in UNIT_OUTPUTS],
        )

    def matrix(self, scenario: str, profile_ids: Sequence[str] | None = None) -> pl.DataFrame:
        """Every weapon against every target (or only `profile_ids`) under one scenario.

        Rows are ordered (wkey, weapon_id) then (tkey, profile_id).
        """
        if profile_ids is None:
            return self._frame(scenario, None)
        wanted = self.targets["profile_id"].is_in(list(profile_ids)).to_numpy()
        return self._frame(scenario, np.flatnonzero(wanted))

    def written(self) -> DamageComputation:
        """This computation without its result blocks (≈ 0.27 GB on the whole corpus): what the stages after
        the store need (the cells, the report), once the matrix is on disk."""
        no_unit = UnitGrid({}, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
        return DamageComputation(self.weapons, self.targets, {}, no_unit, {}, self.scenarios, self.report, self.digest)

    @property
    def cells(self) -> int:
        """Cells of the published matrix: every weapon x every target x every scenario."""
        return self.report.cells_per_scenario * len(self.scenarios)

    def matrices(self) -> Iterator[pl.DataFrame]:
        for scenario in self.scenarios:
            yield self.matrix(scenario.name)

    def row_group(self, scenario: str, start: int, stop: int, buffers: Buffers | None = None) -> Any:
        """Cells `start:stop` of one scenario (row order as `matrix`) as the Arrow table Parquet gets, built
        with NumPy from the weapons they cover only. The ids are dictionary arrays whose dictionaries are
        the weapons of these rows and every target: no string is hashed, compared or copied per cell, and
        each row group's dictionary page holds its own weapons, not all of them. Outputs are gathered by
        rows, then by the targets' columns, into `buffers` when given (the table then holds them: write it
        before the next call), and handed to Arrow without a copy."""
        import pyarrow as pa

        width = self.targets.height
        first, last = (start // width, -(-stop // width)) if width else (0, 0)
        cut = slice(start - first * width, stop - first * width)
        rows = self.effective_keys[scenario][first:last]
        weapon_ids, target_ids, per_100 = self._arrow_ids()
        weapon_codes = np.repeat(np.arange(last - first, dtype=np.int32), width)[cut]
        columns: dict[str, Any] = {  # codes in range by construction: no bounds check (`safe=False`)
            "weapon_id": pa.DictionaryArray.from_arrays(
                weapon_codes, weapon_ids.slice(first, last - first), safe=False
            ),
            "profile_id": pa.DictionaryArray.from_arrays(self._target_codes(cut), target_ids, safe=False),
        }
        if self.fill is not None:
            self.fill.ensure(self.blocks, rows)
        grids = {name: take_rows_columns(self.blocks[name], rows, self.target_keys, buffers, name) for name in OUTPUTS}
        for name in OUTPUTS:
            columns[name] = pa.array(grids[name].ravel()[cut])
        scratch = None if buffers is None else reused(buffers, "damage_per_100_points", len(rows), width)
        per_100_grid = np.multiply(grids["damage_capped"], per_100[first:last, None], out=scratch)
        columns["damage_per_100_points"] = pa.array(per_100_grid.ravel()[cut], from_pandas=True)  # NaN -> null
        for name in UNIT_OUTPUTS:
            columns[name] = pa.array(self.unit.gather(name, rows, None, buffers).ravel()[cut])
        return pa.Table.from_pydict(columns, schema=required_schema(pa.table(columns).schema))

    def _target_codes(self, cut: slice) -> CodeArray:
        """Target codes of the cells `cut` of consecutive weapon rows: a slice of one long repeat of
        0..targets-1 (grown when too short), not a new array per row group."""
        width = self.targets.height
        if self._target_cycle is None or len(self._target_cycle) < cut.stop:
            repeats = -(-max(cut.stop, ROW_GROUP_ROWS + width) // max(width, 1))
            self._target_cycle = np.tile(np.arange(width, dtype=np.int32), repeats)
        return self._target_cycle[cut]

    def _arrow_ids(self) -> tuple[Any, Any, FloatArray]:
        """Weapon and target ids (publication order) as Arrow strings, and 100 / cost per copy (NaN: none)."""
        import pyarrow as pa

        if self._arrow is None:
            per_100 = 100.0 / self.weapons["cost_per_copy"].cast(pl.Float64).fill_null(np.nan)
            self._arrow = (
                pa.array(self.weapons["weapon_id"].to_list(), pa.string()),
                pa.array(self.targets["profile_id"].to_list(), pa.string()),
                per_100.to_numpy(),
            )
        return self._arrow

    def write_parquet(
        self, out_dir: Path, workers: int | None = None, cache: PartCache | None = None
    ) -> list[WrittenPart]:
        """Every scenario to `<out_dir>/damage_matrix/scenario=<name>/part-NNNNN.parquet`, its rows cut into files
        by `matrix_files.file_ranges`, each streamed one row group at a time (`row_group`), so the bytes depend
        on neither `workers` nor the order threads run in; a file whose key (`MatrixDigest.file_key`) `cache`
        holds is placed from it instead. Files in scenario, then row order.

        `workers` files are written at once (default: one per scenario, up to MAX_SCENARIO_WRITERS, else
        `writer_threads()`). Memory is a row group (≈ 30 MB of columns) per writer.
        """
        count = len(self.scenarios)
        workers = (count if count <= MAX_SCENARIO_WRITERS else writer_threads()) if workers is None else workers
        cache = cache if cache is not None and self.digest is not None else PartCache(None, PARQUET_DIR)
        ranges = file_ranges(self.weapons["weapon_id"].to_list())
        jobs = [(scenario.name, index, rows) for scenario in self.scenarios for index, rows in enumerate(ranges)]
        own = threading.local()  # each writer's buffers: a row group is written before the next is built

        def write(job: tuple[str, int, tuple[int, int]]) -> WrittenPart:
            scenario, index, (first, last) = job
            path, width = part_path(out_dir, scenario, index), self.targets.height
            key = self.digest.file_key(scenario, first, last) if self.digest is not None else ""
            placed = cache.place(key, path)
            if placed is not None:
                return WrittenPart(scenario, path, (last - first) * width, placed, from_cache=True)
            own.buffers = getattr(own, "buffers", {})
            groups = (
                self.row_group(scenario, s, min(s + ROW_GROUP_ROWS, last * width), own.buffers)
                for s in range(first * width, last * width, ROW_GROUP_ROWS)
            )
            write_row_groups(groups, path, empty=self.row_group(scenario, 0, 0))
            return WrittenPart(scenario, path, (last - first) * width, cache.keep(key, path), from_cache=False)

        self._arrow_ids()  # built once, before the threads share them
        self._target_codes(slice(0, min(self.report.cells_per_scenario, ROW_GROUP_ROWS)))
        for scenario in self.scenarios:
            fresh_scenario_dir(out_dir, scenario.name)
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return list(pool.map(write, jobs))


@dataclass(frozen=True)
class WrittenPart:
    """One matrix file: its scenario, path, cells, bytes' hash (taken as written or placed), and whether the
    cache gave it."""

    scenario: str
    path: Path
    cells: int
    file: PlacedFile
    from_cache: bool


def write_partition(frame: pl.DataFrame, out_dir: Path, scenario: str) -> list[Path]:
    """One scenario's rows in memory without the `scenario` column (the hive path carries it), cut into files
    and written as `write_parquet` writes them (same settings, files and values; the id dictionaries are the
    frame's own). Rows are weapon-major, every weapon against the same targets.

    The id columns are Enums in memory; they are written dictionary-encoded as plain UTF-8
    strings with no Arrow schema in the file, so Polars, pyarrow and DuckDB all read strings
    (a stored Enum type would make Polars read an Enum that joins to no string column).
    """
    import pyarrow.parquet as pq

    table = frame.drop("scenario").to_arrow()
    table = table.cast(required_schema(table.schema))
    weapons = frame["weapon_id"].cast(pl.String).unique(maintain_order=True).to_list()
    width = frame.height // max(len(weapons), 1)
    fresh_scenario_dir(out_dir, scenario)
    paths = []
    for index, (first, last) in enumerate(file_ranges(weapons)):
        path = part_path(out_dir, scenario, index)
        with _parquet_writer(path, table.schema, pq) as writer:
            writer.write_table(table.slice(first * width, (last - first) * width), row_group_size=ROW_GROUP_ROWS)
        paths.append(path)
    return paths


def write_row_groups(groups: Iterable[Any], path: Path, empty: Any) -> Path:
    """Arrow tables (`DamageComputation.row_group`), one row group each, into one file. `empty` gives the schema
    when there are none."""
    import pyarrow.parquet as pq

    with _parquet_writer(path, empty.schema, pq) as writer:
        wrote = False
        for table in groups:
            writer.write_table(table, row_group_size=max(1, table.num_rows))
            wrote = True
        if not wrote:
            writer.write_table(empty)
    return path


def required_schema(schema: Any) -> Any:
    """`schema` with every column the contract (`DamageCell`) never leaves NULL marked non-nullable: Parquet
    then stores them REQUIRED, with no definition levels to encode, and readers see the same values
    (docs/damage.md#how-it-is-computed)."""
    import pyarrow as pa

    return pa.schema([field.with_nullable(field.name in NULLABLE_COLUMNS) for field in schema])


def _parquet_writer(path: Path, schema: Any, pq: Any) -> Any:
    """zstd, pages of `PAGE_ROWS` (512 KiB of doubles, under Arrow's 1 MiB page size), dictionaries for the ids
    only, min/max statistics for every column but `profile_id`: each row group spans every profile, so its
    statistics skip nothing, and on dictionary-encoded ids they took 40 % of the write
    (docs/damage.md#how-it-is-computed)."""
    ids = [c for c in ("weapon_id", "profile_id") if c in schema.names]
    stats = [c for c in schema.names if c != "profile_id"]
    return pq.ParquetWriter(
        path,
        schema,
        compression="zstd",
        store_schema=False,
        use_dictionary=ids,
        write_statistics=stats,
        write_batch_size=WRITE_BATCH_ROWS,
        max_rows_per_page=PAGE_ROWS,
    )


def effective_key_arrays(
    weapons: pl.DataFrame, effective: EffectiveWeapons, scenarios: Sequence[Scenario]
) -> dict[str, IntArray]:
    """scenario -> the global effective key of each weapon row (weapons in publication order)."""
    arrays = {}
    for index, scenario in enumerate(scenarios):
        keys = effective.keys.filter(pl.col("scenario_idx") == index).select("wkey", "ekey")
        mapped = weapons.select("wkey").join(keys, on="wkey", how="left", maintain_order="left")
        arrays[scenario.name] = mapped["ekey"].cast(pl.Int64).to_numpy()
    return arrays
