"""`unit_matchups` one chunk of attackers at a time: a pure function of (inputs, key) -> Arrow tables, one per
target faction, called through a small executor interface, each table written to its own Parquet file and
dropped.

Layout: `unit_matchups/scenario=<s>/attacker_faction=<a>/part-<n>-<t>.parquet` (docs/units.md#partitions):
chunk n of faction a's attackers (at most `config.MATCHUP_MAX_PAIRS` pairs per phase against every target)
against the targets of faction t. A change to one faction's units touches that faction's chunks and the files
of its targets, not the others; with a part cache (`pipeline/cache/parts.py`) the other files are placed from
the cache and a key computes only its missing target factions (`PartitionKey.target_factions`).
"""

from __future__ import annotations

import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.matchups.pair_table import (
    PhaseRows,
    phases_table,
    points_basis,
    read_file,
    slain_by_group_rows,
    write_file,
)
from pipeline.matchups.recost import BasisMismatch, recost
from pipeline.matchups.sides import UnitOption
from pipeline.runtime import arrow_system_allocator
from pipeline.units.engine import UnitEngine, compute_matchups
from pipeline.units.model import Phase

if TYPE_CHECKING:
    from pipeline.cache.fingerprint import ValueDigest
    from pipeline.matchups.incremental import PartContent

K = TypeVar("K")
V = TypeVar("V")
TABLE = "unit_matchups"
#: The target faction of the empty files written when no option is a target.
NO_TARGETS = "no-targets"
#: Significant bits kept when the target count sizes the chunks: the chunk size changes only when the
#: targets cross a multiple of 2^(bits - 5) (256 at the corpora's 4,742), so adding a unit rarely moves
#: every chunk boundary.
TARGET_BITS = 5


#: Per chunk (`PartitionKey.chunk_key`), the content of each of its files by target faction.
Contents = Mapping["PartitionKey", Mapping[str, "PartContent"]]

#: Targets of one faction beyond which its files are split into target groups (`target_groups`).
GROUP_TARGETS = 400


def target_groups(targets: Sequence[UnitOption]) -> list[str]:
    """Per target, the target faction its files are named by: its faction's slug or, in a faction of more than
    `GROUP_TARGETS` targets, `<slug>.<k>` for one of a power of two of groups, k from the crc32 of its
    bodyguard's unit id (the option's own for an unattached unit): an option and every Leader attached to the
    same unit share a group, and no target moves when another is added (unless the count of groups grows).
    A change of one unit's points then rewrites that group's files, not the faction's
    (docs/units.md#partitions)."""
    counts = Counter(o.faction_slug for o in targets)
    groups = {f: 1 if n <= GROUP_TARGETS else 1 << ((n - 1) // GROUP_TARGETS).bit_length() for f, n in counts.items()}
    named = []
    for option in targets:
        slug, count = option.faction_slug, groups[option.faction_slug]
        body = option.unit_id.rsplit("+", 1)[-1]
        named.append(slug if count == 1 else f"{slug}.{zlib.crc32(body.encode()) % count}")
    return named


@dataclass(frozen=True)
class PartitionKey:
    """One task: a scenario, an attacker faction, the chunk `[first, first + count)` of its attackers, and the
    target factions whose files it writes (None: every one). `helpers` are further targets (indices into
    `MatchupInputs.targets`) the call needs — the family members the written targets' pairs are solved on —
    whose rows are dropped; `cache_keys` the content key of each file written, in `target_factions` order
    (empty: not cached), and `basis_keys` each file's basis key (`matchups/incremental.py`). A `recost` task
    makes its files from their cached bases with new costs (`matchups/recost.py`), computing those it cannot."""

    scenario: str
    attacker_faction: str
    chunk: int = 0
    first: int = 0
    count: int | None = None
    target_factions: tuple[str, ...] | None = None
    helpers: tuple[int, ...] = ()
    cache_keys: tuple[str, ...] = ()
    basis_keys: tuple[str, ...] = ()
    recost: bool = False

    def path(self, target_faction: str) -> str:
        folder = f"{TABLE}/scenario={self.scenario}/attacker_faction={self.attacker_faction}"
        return f"{folder}/part-{self.chunk}-{target_faction}.parquet"

    @property
    def chunk_key(self) -> PartitionKey:
        """The chunk alone (every target faction, no helpers, not cached)."""
        return PartitionKey(self.scenario, self.attacker_faction, self.chunk, self.first, self.count)


@dataclass(frozen=True)
class MatchupInputs:
    """Every unit option (attackers and targets alike); picklable, so an executor may ship it."""

    options: Sequence[UnitOption]
    workers: int = 1
    keep_distribution: bool = False

    max_pairs: int = 1_000_000

    def attackers(self, faction: str) -> list[UnitOption]:
        return self._attackers_by_faction.get(faction, [])

    @cached_property
    def _attackers_by_faction(self) -> dict[str, list[UnitOption]]:
        """Every faction's attacking options in option order (grouped once: each key asks for its faction's)."""
        found: dict[str, list[UnitOption]] = {}
        for option in self.options:
            if option.sides:
                found.setdefault(option.faction_slug, []).append(option)
        return found

    def chunk_attackers(self, key: PartitionKey) -> list[UnitOption]:
        every = self.attackers(key.attacker_faction)
        return every[key.first :] if key.count is None else every[key.first : key.first + key.count]

    def chunk_size(self) -> int:
        """Attackers per chunk: `max_pairs` pairs against the targets, counted to `TARGET_BITS` bits (rounded up,
        so a chunk never exceeds `max_pairs` pairs per phase)."""
        targets = max(1, len(self.targets))
        step = 1 << max(0, targets.bit_length() - TARGET_BITS)
        return max(1, self.max_pairs // (-(-targets // step) * step))

    def keys(self, scenarios: Iterable[str]) -> list[PartitionKey]:
        """One key per (scenario, faction, chunk of at most `chunk_size()` attackers), every target faction."""
        size = self.chunk_size()
        counts = Counter(o.faction_slug for o in self.options if o.sides)
        return [
            PartitionKey(s, f, chunk, first, size)
            for s in scenarios
            for f in sorted(counts)
            for chunk, first in enumerate(range(0, counts[f], size))
        ]

    def size(self, key: PartitionKey) -> int:
        """Attacking options of the key's chunk times the targets of its call (its work, roughly)."""
        return len(self.chunk_attackers(key)) * len(self.call_targets(key))

    @cached_property
    def targets(self) -> list[UnitOption]:
        return [o for o in self.options if o.target is not None]

    @cached_property
    def target_factions(self) -> tuple[str, ...]:
        """Every target faction (slugs, sorted), a faction of more than `GROUP_TARGETS` targets as its target
        groups (`target_groups`): one file per chunk and target faction. With no target at all, `NO_TARGETS`
        alone, so that each chunk still writes its (empty) file and the table exists."""
        return tuple(sorted(set(self._target_faction_of))) or (NO_TARGETS,)

    @cached_property
    def _target_faction_of(self) -> list[str]:
        return target_groups(self.targets)

    @cached_property
    def target_faction_index(self) -> np.ndarray:
        """Per target, the index of its faction (or target group) in `target_factions`."""
        index = {f: i for i, f in enumerate(self.target_factions)}
        return np.array([index[f] for f in self._target_faction_of], dtype=np.int64)

    def faction_targets(self, faction: str) -> np.ndarray:
        """Indices of one faction's targets, in target order."""
        found: np.ndarray = np.flatnonzero(self.target_faction_index == self.target_factions.index(faction))
        return found

    def call_targets(self, key: PartitionKey) -> np.ndarray:
        """Indices of the targets the key's call computes: its target factions' and its helpers, in target order."""
        if key.target_factions is None:
            return np.arange(len(self.targets))
        wanted = [self.target_factions.index(f) for f in key.target_factions]
        chosen = np.isin(self.target_faction_index, wanted)
        chosen[list(key.helpers)] = True
        found: np.ndarray = np.flatnonzero(chosen)
        return found


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


@dataclass(frozen=True)
class ComputedPart:
    """One file's table and, when the key keeps bases, its basis (`pair_table.points_basis`)."""

    table: pa.Table
    basis: pa.Table | None = None


def compute_matchup_parts(inputs: MatchupInputs, key: PartitionKey) -> dict[str, pa.Table]:
    """`computed_parts`' tables."""
    return {faction: part.table for faction, part in computed_parts(inputs, key).items()}


def computed_parts(inputs: MatchupInputs, key: PartitionKey) -> dict[str, ComputedPart]:
    """The key's attackers against the targets of each of its target factions, both phases, in one scenario:
    one table per target faction (rows: shooting then fight, attacker-major, targets in target order).

    One engine call per phase against every target of the call (the key's factions and its helpers), without
    dense operators (`compute_matchups(..., operators=False)`), so a faction's rows are the same bits whatever
    other factions the call holds (docs/units.md#partitions)."""
    arrow_system_allocator()  # in whichever process the executor runs this
    attackers = inputs.chunk_attackers(key)
    call = inputs.call_targets(key)
    targets = [inputs.targets[i] for i in call.tolist()]
    engine = _engine(key.scenario, inputs.workers)
    phases, rows_target, rows_attacker = [], [], []
    for phase in Phase:
        armed = [i for i, o in enumerate(attackers) if phase in o.sides]
        if not armed or not targets:
            continue
        sides = [attackers[i].sides[phase] for i in armed]
        defences = [t.target for t in targets if t.target is not None]
        result = compute_matchups(
            sides, defences, engine=engine, distributions=inputs.keep_distribution, operators=False
        )
        every = np.arange(len(result.pairs), dtype=np.int64)  # narrowed below
        phases.append(PhaseRows(phase, result, [attackers[i] for i in armed], every))
        rows_target.append(call[result.pairs[:, 1]])
        rows_attacker.append(np.asarray(armed, dtype=np.int64)[result.pairs[:, 0]])
    by_group = [slain_by_group_rows(p.result) for p in phases] if key.basis_keys else []
    row_attacker = np.concatenate(rows_attacker) if rows_attacker else np.zeros(0, np.int64)
    row_target = np.concatenate(rows_target) if rows_target else np.zeros(0, np.int64)
    faction = inputs.target_faction_index[row_target]
    order = np.argsort(faction, kind="stable")  # a faction's rows stay ascending: shooting, then fight
    bounds = np.searchsorted(faction[order], np.arange(len(inputs.target_factions) + 1))
    starts = np.cumsum([0, *(len(p.result.pairs) for p in phases)])
    wanted = inputs.target_factions if key.target_factions is None else key.target_factions
    parts = {}
    for name in wanted:
        f = inputs.target_factions.index(name)
        rows = order[bounds[f] : bounds[f + 1]]
        cuts = np.searchsorted(rows, starts)
        taken = [replace(p, rows=rows[cuts[i] : cuts[i + 1]] - starts[i]) for i, p in enumerate(phases)]
        table = phases_table(taken, targets, inputs.keep_distribution)
        basis = None
        if key.basis_keys:  # each row's options as the basis key lists them: the chunk's, the faction's targets
            options = (row_attacker[rows], np.searchsorted(inputs.faction_targets(name), row_target[rows]))
            basis = points_basis(taken, targets, by_group, options)
        parts[name] = ComputedPart(table, basis)
    return parts


@dataclass(frozen=True)
class WrittenPartition:
    """One file of the release: its chunk, target faction, rows and size, and whether the cache gave it."""

    key: PartitionKey
    target_faction: str
    rows: int
    bytes: int
    reused: bool = False
    #: Made from the cache's basis with new costs (`matchups/recost.py`), not computed.
    recosted: bool = False
    #: The file's sha256 where it was taken (kept or placed by the cache), so publishing need not read it.
    sha256: str = ""

    @property
    def path(self) -> str:
        return self.key.path(self.target_faction)


def write_parts(
    inputs: MatchupInputs,
    key: PartitionKey,
    release: Path,
    cache: PartCache | None = None,
    bases: PartCache | None = None,
) -> list[WrittenPartition]:
    """Compute one key's tables and write (and, with its cache keys, keep with their bases) each file; a
    `recost` key's files are re-costed instead, and those that cannot be are computed."""
    if key.recost:
        return recost_parts(inputs, key, release, cache, bases)
    parts = computed_parts(inputs, key)
    return [write_table(parts[f], key, f, release, cache, bases) for f in parts]


def write_table(
    part: ComputedPart,
    key: PartitionKey,
    target_faction: str,
    release: Path,
    cache: PartCache | None = None,
    bases: PartCache | None = None,
) -> WrittenPartition:
    path = release / key.path(target_faction)
    write_part_file(part.table, path)
    size, sha256 = path.stat().st_size, ""
    if cache is not None and key.cache_keys and key.target_factions is not None:
        index = key.target_factions.index(target_faction)
        kept = cache.keep(key.cache_keys[index], path, {"rows": part.table.num_rows})
        size, sha256 = kept.bytes, kept.sha256
        if bases is not None and part.basis is not None and key.basis_keys:
            bases.keep_bytes(key.basis_keys[index], parquet_bytes(part.basis), {"file": key.cache_keys[index]})
    return WrittenPartition(key, target_faction, part.table.num_rows, size, sha256=sha256)


def write_part_file(table: pa.Table, path: Path) -> None:
    """One `unit_matchups` file, as every path (computed or re-costed) writes it (`pair_table.write_file`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(table, str(path))


def parquet_bytes(table: pa.Table) -> bytes:
    """A table the cache alone keeps (a basis, a `unit_vs_reference` piece) as Parquet bytes (no dictionary
    tried on doubles)."""
    sink = pa.BufferOutputStream()
    keys = [f.name for f in table.schema if not pa.types.is_floating(f.type)]
    pq.write_table(table, sink, compression="zstd", use_dictionary=keys)
    return bytes(sink.getvalue().to_pybytes())


def write_partitions(
    inputs: MatchupInputs,
    keys: Sequence[PartitionKey],
    release: Path,
    executor: Executor | None = None,
    cache: PartCache | None = None,
    bases: PartCache | None = None,
    plans: PartCache | None = None,
    contents: Contents | None = None,
) -> list[WrittenPartition]:
    """Every file of `keys`' chunks: placed from `cache` when its content key has an entry, re-costed when its
    basis key has one in `bases` (`matchups/recost.py`), else computed and written (and kept in the caches);
    nothing but one task's tables per worker is held at a time. A task computes its chunk against the target
    factions whose files are missing only (with the helpers their pairs need), the largest tasks first, the
    re-costing ones last. Tasks write their own files when the executor's workers share this file system
    (`local_files`): only counts travel back, so no result is held twice; otherwise the driver writes (and
    re-costs). `plans`: the plan's `solved_on` results, kept for runs whose targets read the same; `contents`:
    the chunks' file contents when already known (`file_contents`)."""
    executor = executor or InProcessExecutor()
    placed, tasks = plan_tasks(inputs, keys, release, cache, bases, plans, contents)
    tasks = sorted(tasks, key=lambda k: (k.recost, -inputs.size(k)))  # the largest first: no long tail
    if getattr(executor, "local_files", False):
        done = executor.map(lambda k: write_parts(inputs, k, release, cache, bases), tasks)
        computed = [w for _, ws in done for w in ws]
    else:
        computed = [w for k in tasks if k.recost for w in recost_parts(inputs, k, release, cache, bases)]
        results = executor.map(lambda k: computed_parts(inputs, k), [k for k in tasks if not k.recost])
        computed += [write_table(p, key, f, release, cache, bases) for key, parts in results for f, p in parts.items()]
    if cache is not None:
        cache.claim(k for task in tasks for k in task.cache_keys)  # kept by the workers, in their processes
    if bases is not None:
        bases.claim(k for task in tasks for k in task.basis_keys)
    return placed + computed


def plan_tasks(
    inputs: MatchupInputs,
    keys: Sequence[PartitionKey],
    release: Path,
    cache: PartCache | None,
    bases: PartCache | None = None,
    plans: PartCache | None = None,
    contents: Contents | None = None,
) -> tuple[list[WrittenPartition], list[PartitionKey]]:
    """The files the cache places into `release` now, and the tasks for the rest (each key narrowed to its
    missing target factions, with their helpers and keys): per chunk, one task re-costing the files whose basis
    the caches hold and one computing the others. Without a cache folder: every key, whole."""
    if cache is None or cache.folder is None or not keys:
        return [], [replace(k, target_factions=None, helpers=(), cache_keys=(), basis_keys=()) for k in keys]
    if contents is None:
        contents = file_contents(inputs, sorted({k.scenario for k in keys}), plans)
    placed: list[WrittenPartition] = []
    tasks: list[PartitionKey] = []
    for key in keys:
        chunk = key.chunk_key
        content = contents[chunk]
        missing: dict[bool, list[str]] = {True: [], False: []}
        for faction in inputs.target_factions:
            found = cache.place(content[faction].key, release / chunk.path(faction))
            if found is not None:
                rows = int(found.meta.get("rows", 0))
                placed.append(WrittenPartition(chunk, faction, rows, found.bytes, True, sha256=found.sha256))
                if bases is not None:
                    bases.claim([content[faction].basis])  # kept for the next change of costs
                continue
            missing[bases is not None and _has_basis(content[faction].basis, cache, bases)].append(faction)
        for recosting, factions in missing.items():
            if factions:
                helpers = sorted(set().union(*(content[f].helpers for f in factions)))
                cache_keys = tuple(content[f].key for f in factions)
                basis_keys = tuple(content[f].basis for f in factions) if bases is not None else ()
                tasks.append(replace(chunk, target_factions=tuple(factions), helpers=tuple(helpers),
                                     cache_keys=cache_keys, basis_keys=basis_keys, recost=recosting))  # fmt: skip
    return placed, tasks


def file_contents(
    inputs: MatchupInputs, scenarios: Sequence[str], plans: PartCache | None = None, reads: ValueDigest | None = None
) -> Contents:
    """Per chunk of `scenarios`, the content of each of its files (`incremental.MatchupPartKeys`): what the
    cache is asked for. Reads no cache but `plans`, so a run makes it before the release folder exists.
    `reads`: a `costless_digester` that has already read some of the options (the plan shares one)."""
    from pipeline.matchups.incremental import MatchupPartKeys  # digests every target: not for no file at all

    parts = MatchupPartKeys(inputs, plans, reads)
    return {key.chunk_key: parts.of(key.chunk_key) for key in inputs.keys(scenarios)}


def needs_computing(contents: Contents, cache: PartCache, bases: PartCache) -> bool:
    """Whether a file of the chunks is one the caches can neither place nor re-cost (the files' entries from
    one listing; a missing one's basis read)."""
    held = cache.entry_keys()
    every = (c for content in contents.values() for c in content.values())
    return any(c.key not in held and not _has_basis(c.basis, cache, bases) for c in every)


def _has_basis(basis: str, cache: PartCache, bases: PartCache) -> bool:
    """Whether the caches hold `basis` and the file it was last written with (checked when read)."""
    meta = bases.meta(basis)
    return meta is not None and cache.meta(str(meta.get("file", ""))) is not None


def recost_parts(
    inputs: MatchupInputs, key: PartitionKey, release: Path, cache: PartCache | None, bases: PartCache | None
) -> list[WrittenPartition]:
    """A `recost` task: each file from its basis with today's costs; those whose basis is gone or does not
    fit are computed (a warning says why)."""
    assert key.target_factions is not None
    written, failed = [], []
    for index, faction in enumerate(key.target_factions):
        done = None
        if cache is not None and bases is not None:
            keys = (key.cache_keys[index], key.basis_keys[index])
            done = recost_file(inputs, key, faction, *keys, release, cache, bases)
        if done is None:
            failed.append(index)
        else:
            written.append(done)
    if failed:
        narrowed = replace(
            key,
            recost=False,
            target_factions=tuple(key.target_factions[i] for i in failed),
            cache_keys=tuple(key.cache_keys[i] for i in failed),
            basis_keys=tuple(key.basis_keys[i] for i in failed),
        )
        written += write_parts(inputs, narrowed, release, cache, bases)
    return written


def recost_file(
    inputs: MatchupInputs,
    chunk: PartitionKey,
    faction: str,
    content_key: str,
    basis_key: str,
    release: Path,
    cache: PartCache,
    bases: PartCache,
) -> WrittenPartition | None:
    """The file (chunk, faction) from its basis and the last file of that basis with today's costs, written
    and kept as the content key's; None when the caches hold no usable basis (it is then computed)."""
    basis = bases.get(basis_key)
    previous = cache.get(str(basis[1].meta.get("file", "")), use=False) if basis is not None else None
    if basis is None or previous is None:
        return None
    targets = [inputs.targets[i] for i in inputs.faction_targets(faction).tolist()]
    try:
        table = recost(read_file(previous[0]), pq.read_table(basis[0]), inputs.chunk_attackers(chunk), targets)
    except (BasisMismatch, pa.ArrowException, OSError) as exc:
        warnings.warn(f"cache basis ignored, recomputing: {basis[0]}: {exc}", CacheWarning, stacklevel=2)
        return None
    path = release / chunk.path(faction)
    write_part_file(table, path)
    placed = cache.keep(content_key, path, {"rows": table.num_rows})
    bases.set_meta(basis_key, {"file": content_key})  # the next change reads this file
    return WrittenPartition(chunk.chunk_key, faction, table.num_rows, placed.bytes, recosted=True, sha256=placed.sha256)
