"""`unit_matchups` one partition at a time: a pure function of (inputs, key) -> an Arrow table, called
through a small executor interface, each result written to its own Parquet file and dropped.

Layout: `unit_matchups/scenario=<s>/attacker_faction=<slug>/part-<n>.parquet` (docs/units.md#partitions): a
faction's attackers in chunks of at most `config.MATCHUP_MAX_PAIRS` pairs per phase, so one result's memory is
bounded whatever the faction's size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.matchups.sides import UnitOption
from pipeline.units.engine import UnitEngine, compute_matchups
from pipeline.units.model import Phase
from pipeline.units.results import Matchups

K = TypeVar("K")
V = TypeVar("V")
TABLE = "unit_matchups"


@dataclass(frozen=True)
class PartitionKey:
    """One file: a scenario, an attacker faction, and the chunk `[first, first + count)` of its attackers."""

    scenario: str
    attacker_faction: str
    chunk: int = 0
    first: int = 0
    count: int | None = None

    @property
    def path(self) -> str:
        return f"{TABLE}/scenario={self.scenario}/attacker_faction={self.attacker_faction}/part-{self.chunk}.parquet"


@dataclass(frozen=True)
class MatchupInputs:
    """Every unit option (attackers and targets alike); picklable, so an executor may ship it."""

    options: Sequence[UnitOption]
    workers: int = 1
    keep_distribution: bool = False

    max_pairs: int = 1_000_000

    def attackers(self, faction: str) -> list[UnitOption]:
        return [o for o in self.options if o.faction_slug == faction and o.sides]

    def keys(self, scenarios: Iterable[str]) -> list[PartitionKey]:
        """One key per (scenario, faction, chunk of at most `max_pairs` // targets attackers)."""
        size = max(1, self.max_pairs // max(1, len(self.targets)))
        counts = Counter(o.faction_slug for o in self.options if o.sides)
        return [
            PartitionKey(s, f, chunk, first, size)
            for s in scenarios
            for f in sorted(counts)
            for chunk, first in enumerate(range(0, counts[f], size))
        ]

    def size(self, key: PartitionKey) -> int:
        """Attacking options of the key's chunk (its work, roughly)."""
        every = len(self.attackers(key.attacker_faction))
        return max(0, min(every, key.first + (key.count if key.count is not None else every)) - key.first)

    @property
    def targets(self) -> list[UnitOption]:
        return [o for o in self.options if o.target is not None]


class Executor(Protocol):
    """Maps a function over keys; results may arrive in any order, each with its key."""

    def map(self, function: Callable[[K], V], keys: Sequence[K]) -> Iterator[tuple[K, V]]: ...


class InProcessExecutor:
    """One key after the other in this process (the engine's own workers use the cores)."""

    local_files = True

    def map(self, function: Callable[[K], V], keys: Sequence[K]) -> Iterator[tuple[K, V]]:
        for key in keys:
            yield key, function(key)


_ENGINES: dict[tuple[str, int], UnitEngine] = {}


def _engine(scenario: str, workers: int) -> UnitEngine:
    """One engine per (scenario, workers) in a process: its rule caches serve every partition."""
    key = (scenario, workers)
    if key not in _ENGINES:
        _ENGINES[key] = UnitEngine(scenario, workers=workers)
    return _ENGINES[key]


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


def compute_matchup_partition(inputs: MatchupInputs, key: PartitionKey) -> pa.Table:
    """Every option of the key's faction against every target option, both phases, in one scenario."""
    every = inputs.attackers(key.attacker_faction)
    attackers = every[key.first :] if key.count is None else every[key.first : key.first + key.count]
    targets = inputs.targets
    engine = _engine(key.scenario, inputs.workers)
    tables = []
    for phase in Phase:
        armed = [o for o in attackers if phase in o.sides]
        if not armed or not targets:
            continue
        sides = [o.sides[phase] for o in armed]
        defences = [t.target for t in targets if t.target is not None]
        result = compute_matchups(sides, defences, engine=engine, distributions=inputs.keep_distribution)
        tables.append(matchup_table(result, armed, targets, phase, inputs.keep_distribution))
    schema = SCHEMA.append(DIST_FIELD) if inputs.keep_distribution else SCHEMA
    return pa.concat_tables(tables) if tables else schema.empty_table()


def matchup_table(
    result: Matchups, attackers: Sequence[UnitOption], targets: Sequence[UnitOption], phase: Phase, dist: bool
) -> pa.Table:
    """The engine's per-pair columns with ids, sizes and the phase (ids taken from small Arrow arrays)."""
    a, t = pa.array(result.pairs[:, 0]), pa.array(result.pairs[:, 1])
    t_index = result.pairs[:, 1]
    wounds = np.array([o.target.total_wounds if o.target else 0 for o in targets], dtype=np.int64)
    has_cost = np.array([o.cost > 0 for o in targets])[t_index]
    columns: list[pa.Array] = [
        pa.array([o.unit_id for o in attackers], type=pa.string()).take(a),
        pa.array([o.models for o in attackers], type=pa.int64()).take(a),
        pa.array([o.unit_id for o in targets], type=pa.string()).take(t),
        pa.array([o.models for o in targets], type=pa.int64()).take(t),
        pa.repeat(pa.scalar(phase.value, pa.string()), len(t_index)),
        pa.array(result.expected_slain),
        pa.array(np.clip(result.p_any, 0.0, 1.0)),
        pa.array(np.clip(result.p_wipe, 0.0, 1.0)),
        pa.array(result.slain_p10),
        pa.array(result.slain_p50),
        pa.array(result.slain_p90),
        pa.array(result.wounds_lost),
        pa.array(wounds[t_index]),
        pa.array(result.points_destroyed, mask=~has_cost),
        pa.array(result.points_destroyed_per_100, mask=~has_cost | np.isnan(result.points_destroyed_per_100)),
    ]
    schema = SCHEMA
    if dist:
        columns.append(distribution_column(result))
        schema = SCHEMA.append(DIST_FIELD)
    return pa.Table.from_arrays(columns, schema=schema)


def distribution_column(result: Matchups) -> pa.Array:
    """`slain_dist` per pair: each distinct job's row as one list, taken per pair (no Python list per row)."""
    lengths = result.job_models + 1
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    keep = np.arange(result.job_dist.shape[1])[None, :] < lengths[:, None]
    values = pa.array(result.job_dist[keep])
    per_job = pa.ListArray.from_arrays(pa.array(offsets), values, type=DIST_FIELD.type)
    return per_job.take(pa.array(result.job))


@dataclass(frozen=True)
class WrittenPartition:
    key: PartitionKey
    rows: int
    bytes: int


def write_partition(inputs: MatchupInputs, key: PartitionKey, release: Path) -> WrittenPartition:
    """Compute one partition and write its file."""
    return write_table(compute_matchup_partition(inputs, key), key, release)


def write_table(table: pa.Table, key: PartitionKey, release: Path) -> WrittenPartition:
    path = release / key.path
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", store_schema=False)
    return WrittenPartition(key, table.num_rows, path.stat().st_size)


def write_partitions(
    inputs: MatchupInputs, keys: Sequence[PartitionKey], release: Path, executor: Executor | None = None
) -> list[WrittenPartition]:
    """Each partition computed and written; nothing but one partition per worker is held at a time. Tasks
    write their own file when the executor's workers share this file system (`local_files`): only counts
    travel back, so no result is held twice (in the worker and, pickled, here); otherwise the driver writes."""
    executor = executor or InProcessExecutor()
    if getattr(executor, "local_files", False):
        return [w for _, w in executor.map(lambda k: write_partition(inputs, k, release), keys)]
    pairs = executor.map(lambda k: compute_matchup_partition(inputs, k), keys)
    return [write_table(table, key, release) for key, table in pairs]
