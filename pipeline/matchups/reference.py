"""`unit_vs_reference`: every golden unit option against the reference units (each reference profile at
1, 5, 10 and 20 models), every published scenario, both phases, with the whole distribution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.partition import DIST_FIELD, SCHEMA, _engine, matchup_table
from pipeline.matchups.sides import UnitOption, _group
from pipeline.units.engine import compute_matchups
from pipeline.units.model import Phase, TargetUnit

REFERENCE_SIZES = (1, 5, 10, 20)


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
    options: Sequence[UnitOption], references: Sequence[UnitOption], scenarios: Sequence[str], workers: int = 1
) -> pa.Table:
    """Rows of `unit_vs_reference` (golden options only; attached units are in `unit_matchups`): one task per
    (scenario, phase) on `workers` forked processes, concatenated in (scenario, phase) order."""
    golden = [o for o in options if "+" not in o.unit_id]
    keys = [(s, p) for s in scenarios for p in Phase]
    tables = dict(ForkExecutor(workers).map(lambda k: _phase_table(golden, references, *k), keys))
    parts = [tables[k] for k in keys if tables[k] is not None]
    schema = SCHEMA.append(DIST_FIELD).append(pa.field("attacker_faction", pa.string()))
    schema = schema.append(pa.field("scenario", pa.string()))
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _phase_table(
    golden: Sequence[UnitOption], references: Sequence[UnitOption], scenario: str, phase: Phase
) -> pa.Table | None:
    """One scenario and phase, the engine serial (the (scenario, phase) pairs are the parallel tasks)."""
    targets = [r.target for r in references if r.target is not None]
    armed = [o for o in golden if phase in o.sides]
    if not armed:
        return None
    result = compute_matchups([o.sides[phase] for o in armed], targets, engine=_engine(scenario, 1))
    table = matchup_table(result, armed, references, phase, dist=True)
    faction = pa.array([o.faction_slug for o in armed], type=pa.string()).take(pa.array(result.pairs[:, 0]))
    table = table.append_column("attacker_faction", faction)
    return table.append_column("scenario", pa.repeat(pa.scalar(scenario, pa.string()), table.num_rows))
