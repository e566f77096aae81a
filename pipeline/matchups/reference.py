"""`unit_vs_reference`: every golden unit option against the reference units (each reference profile at
1, 5, 10 and 20 models), every published scenario, both phases, with the whole distribution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.cache.parts import PartCache
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.pair_table import DIST_FIELD, SCHEMA, matchup_table
from pipeline.matchups.partition import _engine, parquet_bytes
from pipeline.matchups.sides import UnitOption, _group
from pipeline.runtime import arrow_system_allocator
from pipeline.units.engine import compute_matchups
from pipeline.units.model import Phase, TargetUnit

REFERENCE_SIZES = (1, 5, 10, 20)
SCHEMA_VS = SCHEMA.append(DIST_FIELD).append(pa.field("attacker_faction", pa.string()))
SCHEMA_VS = SCHEMA_VS.append(pa.field("scenario", pa.string()))


def reference_units(profiles: Sequence[Mapping[str, Any]]) -> list[UnitOption]:
    """Each reference profile (`reference_profiles` rows) at each size, as a target of no cost."""
    units = []
    for row in sorted(profiles, key=lambda r: str(r["profile_id"])):
        keywords = frozenset(str(k).upper() for k in row.get("keywords") or ())
        for size in REFERENCE_SIZES:
            group = _group(row, size, 0.0, keywords, stealth=False)
            target = TargetUnit((group,), name=f"{row['profile_id']}@{size}")
            units.append(UnitOption(str(row["profile_id"]), str(row["name"]), "", size, 0.0, target, {}))
    return units


def unit_vs_reference(
    options: Sequence[UnitOption],
    references: Sequence[UnitOption],
    scenarios: Sequence[str],
    workers: int = 1,
    cache: PartCache | None = None,
) -> pa.Table:
    """Rows of `unit_vs_reference` (golden options only; attached units are in `unit_matchups`), one piece per
    attacker faction (its rows in every scenario and phase), pieces in faction order. A piece whose content key
    (`incremental.vs_reference_keys`) has a cache entry is read from it; the others are computed together, one
    task per (scenario, phase) on `workers` forked processes, without dense operators (so a faction's rows are
    the same bits whatever other factions a call holds), and kept in the cache. The stage sorts the table."""
    golden = [o for o in options if "+" not in o.unit_id]
    factions = sorted({o.faction_slug for o in golden})
    pieces: dict[str, pa.Table] = {}
    keys: dict[str, str] = {}
    if cache is not None and cache.folder is not None:
        from pipeline.matchups.incremental import vs_reference_keys

        keys = vs_reference_keys(golden, references, scenarios)
        for faction in factions:
            found = cache.get(keys[faction])
            if found is not None:
                pieces[faction] = pq.read_table(found[0])
    missing = [o for o in golden if o.faction_slug not in pieces]
    if missing:
        tasks = [(s, p) for s in scenarios for p in Phase]
        tables = dict(ForkExecutor(workers).map(lambda k: _phase_table(missing, references, *k), tasks))
        computed = [tables[k] for k in tasks if tables[k] is not None]
        for faction, piece in _by_faction(computed, sorted({o.faction_slug for o in missing})).items():
            pieces[faction] = piece
            if cache is not None and faction in keys:
                _keep(cache, keys[faction], piece)
    parts = [pieces[f] for f in factions if pieces[f].num_rows]
    return pa.concat_tables(parts) if parts else SCHEMA_VS.empty_table()


def _by_faction(tables: Sequence[pa.Table], factions: Sequence[str]) -> dict[str, pa.Table]:
    """Each faction's rows of the (scenario, phase) tables, in table order then row order."""
    parts: dict[str, list[pa.Table]] = {faction: [] for faction in factions}
    for table in tables:
        for faction, rows in _faction_rows(table):
            parts[faction].append(rows)
    empty = tables[0].slice(0, 0) if tables else SCHEMA_VS.empty_table()
    return {faction: pa.concat_tables(parts[faction] or [empty]) for faction in factions}


def _faction_rows(table: pa.Table) -> list[tuple[str, pa.Table]]:
    """(faction, its rows) of one table: a slice each where every faction's rows lie together (the attackers
    come in faction order), else a filter each. Filtering every table for every faction (26 x 10 filters,
    then copies of the distributions) took ≈ 0.7 s of one core while the other waited."""
    runs = pc.run_end_encode(table["attacker_faction"]).combine_chunks()
    names, ends = runs.values.to_pylist(), runs.run_ends.to_pylist()
    if len(set(names)) < len(names):
        return [(name, table.filter(pc.equal(table["attacker_faction"], name))) for name in sorted(set(names))]
    return [(name, table.slice(start, end - start)) for name, start, end in zip(names, [0, *ends], ends, strict=False)]


def _keep(cache: PartCache, key: str, piece: pa.Table) -> None:
    """The piece as a Parquet file in the cache."""
    cache.keep_bytes(key, parquet_bytes(piece), {"rows": piece.num_rows})


def _phase_table(
    golden: Sequence[UnitOption], references: Sequence[UnitOption], scenario: str, phase: Phase
) -> pa.Table | None:
    """One scenario and phase, the engine serial (the (scenario, phase) pairs are the parallel tasks)."""
    arrow_system_allocator()  # in whichever process runs this (docs/units.md#summaries-read-the-views-tables-issue-13)
    targets = [r.target for r in references if r.target is not None]
    armed = [o for o in golden if phase in o.sides]
    if not armed:
        return None
    result = compute_matchups([o.sides[phase] for o in armed], targets, engine=_engine(scenario, 1), operators=False)
    table = matchup_table(result, armed, references, phase, dist=True)
    faction = pa.array([o.faction_slug for o in armed], type=pa.string()).take(pa.array(result.pairs[:, 0]))
    table = table.append_column("attacker_faction", faction)
    return table.append_column("scenario", pa.repeat(pa.scalar(scenario, pa.string()), table.num_rows))
