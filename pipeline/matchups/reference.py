"""`unit_vs_reference`: every golden unit option against the reference units (each reference profile at
1, 5, 10 and 20 models), every published scenario, both phases, with the whole distribution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.cache.parts import PartCache
from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.pair_table import DIST_FIELD, SCHEMA, matchup_table
from pipeline.matchups.partition import _engine, parquet_bytes
from pipeline.matchups.sides import UnitOption, _group
from pipeline.runtime import arrow_system_allocator
from pipeline.units.engine import compute_matchups
from pipeline.units.model import Phase, TargetUnit
from pipeline.units.scenario_reads import is_base, side_changes

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
    keys: Mapping[str, str] | None = None,
) -> pa.Table:
    """Rows of `unit_vs_reference` (golden options only; attached units are in `unit_matchups`), one piece per
    attacker faction (its rows in every scenario and phase), pieces in faction order. A piece whose content key
    (`incremental.vs_reference_keys`) has a cache entry is read from it; the others are computed together, one
    task per (scenario, phase) on `workers` forked processes, without dense operators (so a faction's rows are
    the same bits whatever other factions a call holds), and kept in the cache. The stage sorts the table.
    `keys`: the pieces' content keys when already known (`stage.plan_matchups`)."""
    golden = [o for o in options if "+" not in o.unit_id]
    factions = sorted({o.faction_slug for o in golden})
    pieces: dict[str, pa.Table] = {}
    known: dict[str, str] = {}
    if cache is not None and cache.folder is not None:
        from pipeline.matchups.incremental import vs_reference_keys

        known = dict(keys) if keys else vs_reference_keys(golden, references, scenarios)
        for faction in factions:
            found = cache.get(known[faction])
            if found is not None:
                pieces[faction] = pq.read_table(found[0])
    missing = [o for o in golden if o.faction_slug not in pieces]
    if missing:
        computed = _scenario_tables(missing, references, scenarios, workers)
        for faction, piece in _by_faction(computed, sorted({o.faction_slug for o in missing})).items():
            pieces[faction] = piece
            if cache is not None and faction in known:
                _keep(cache, known[faction], piece)
    parts = [pieces[f] for f in factions if pieces[f].num_rows]
    return pa.concat_tables(parts) if parts else SCHEMA_VS.empty_table()


def _scenario_tables(
    golden: Sequence[UnitOption], references: Sequence[UnitOption], scenarios: Sequence[str], workers: int
) -> list[pa.Table]:
    """The (scenario, phase) tables in that order, none for a phase no option attacks in. With a base scenario
    among `scenarios`, another scenario computes only the options it changes (`scenario_reads`): the rows of
    the others are the base scenario's, copied (docs/units.md#scenarios-computed-once). One task per (scenario,
    phase) with options to compute, the largest first."""
    base = next((s for s in scenarios if is_base(SCENARIO_DEFINITIONS[s])), None)
    selecting = {s: s if base is not None and s != base else None for s in scenarios}  # None: every option
    tasks = [(s, p, _computed_options(golden, p, selecting[s])) for s in scenarios for p in Phase]
    work = sorted((t for t in tasks if t[2]), key=lambda t: -len(t[2]))
    run = ForkExecutor(workers).map(lambda t: _phase_table([golden[i] for i in t[2]], references, t[0], t[1]), work)
    tables = {(s, p): table for (s, p, _), table in run}
    armed = {p: [i for i, o in enumerate(golden) if p in o.sides] for p in Phase}
    per_option = sum(r.target is not None for r in references)  # rows: one per reference unit
    out = []
    for s, p, own in tasks:
        if not armed[p]:
            continue
        if base is None or s == base or len(own) == len(armed[p]):
            out.append(tables[(s, p)])
        else:
            out.append(_with_base_rows(tables[(base, p)], tables.get((s, p)), armed[p], own, s, per_option))
    return out


def _computed_options(golden: Sequence[UnitOption], phase: Phase, scenario: str | None) -> tuple[int, ...]:
    """Indices of the options armed in `phase` that `scenario` changes (every armed one for the base: None)."""
    definition = SCENARIO_DEFINITIONS[scenario] if scenario is not None else None
    return tuple(
        i
        for i, o in enumerate(golden)
        if phase in o.sides and (definition is None or side_changes(o.sides[phase], definition))
    )


def _with_base_rows(
    base: pa.Table, own: pa.Table | None, armed: Sequence[int], computed: Sequence[int], scenario: str,
    per_option: int,
) -> pa.Table:  # fmt: skip
    """A scenario's table of one phase: each armed option's `per_option` rows (options in order) from `own` (the
    options it computed, in order) if it computed them, else from the base scenario's table."""
    own_at = {option: k for k, option in enumerate(computed)}
    starts = [
        base.num_rows + own_at[option] * per_option if option in own_at else k * per_option
        for k, option in enumerate(armed)
    ]
    rows = (np.asarray(starts, dtype=np.int64)[:, None] + np.arange(per_option, dtype=np.int64)).ravel()
    both = pa.concat_tables([base, own]) if own is not None else base
    table = both.take(pa.array(rows)).combine_chunks()
    column = table.schema.get_field_index("scenario")
    return table.set_column(column, "scenario", pa.repeat(pa.scalar(scenario, pa.string()), table.num_rows))


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
