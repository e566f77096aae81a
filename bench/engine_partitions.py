"""CPU seconds per pair of the unit engine on a few real `unit_matchups` partitions, in process.

For comparing two versions of the engine on a busy box: time CPU (not wall), the same partitions, several
repeats, and alternate the versions (`PYTHONPATH=<checkout>`). The options come from the frames of a run on
the three corpora (`bench.matchups_bench.corpora_frames`), cached as a pickle (`--options`) so that a repeat
does not parse again. `--save DIR` writes each partition's table; `--compare DIR` checks a later version's
tables against them (same schema, ids and integer columns equal, the largest float difference printed).

    python -m bench.engine_partitions --options /tmp/options.pkl --save /tmp/before --repeats 3
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

PARTITIONS = (("orks", 0), ("space-marines", 3), ("aeldari", 0), ("necrons", 0))
ORDER = [(c, "ascending") for c in ("phase", "attacker_unit_id", "attacker_models", "target_unit_id", "target_models")]


def load_options(cache: Path | None) -> list[Any]:
    """Every unit option of a run on the three corpora (read from `cache` when it exists)."""
    if cache is not None and cache.exists():
        options: list[Any] = pickle.loads(cache.read_bytes())
        return options
    from bench.matchups_bench import corpora_frames
    from pipeline.matchups.stage import matchup_options

    options = matchup_options(corpora_frames()[0])
    if cache is not None:
        cache.write_bytes(pickle.dumps(options))
    return options


def largest_difference(before: pa.Table, after: pa.Table) -> float:
    """Largest absolute difference of the float columns; every other column must be equal."""
    assert before.schema == after.schema and before.num_rows == after.num_rows
    worst = 0.0
    for name in before.column_names:
        old, new = before[name].to_numpy(zero_copy_only=False), after[name].to_numpy(zero_copy_only=False)
        if old.dtype.kind == "f":
            assert np.array_equal(np.isnan(old), np.isnan(new)), name
            worst = max(worst, float(np.nan_to_num(np.abs(old - new)).max(initial=0.0)))
        else:
            assert before[name].equals(after[name]), name
    return worst


def run(options: list[Any], repeats: int, save: Path | None, compare: Path | None) -> None:
    from pipeline import config
    from pipeline.matchups.partition import _ENGINES, MatchupInputs, compute_matchup_parts
    from pipeline.units.count_cache import SHARED

    inputs = MatchupInputs(options, workers=1, max_pairs=config.MATCHUP_MAX_PAIRS)
    keys = {(k.attacker_faction, k.chunk): k for k in inputs.keys(["default"])}
    for repeat in range(repeats):
        _ENGINES.clear()  # a fresh engine per repeat: its caches are built inside the timing, as in a worker
        SHARED.clear()  # and the process's shared count pmfs
        cpu_total, rows_total = 0.0, 0
        for faction, chunk in PARTITIONS:
            start = time.process_time()
            parts = compute_matchup_parts(inputs, keys[(faction, chunk)])  # the chunk against every target
            table = pa.concat_tables(parts.values())
            cpu = time.process_time() - start
            cpu_total, rows_total = cpu_total + cpu, rows_total + table.num_rows
            line = (
                f"{faction}-{chunk}: {table.num_rows} rows, {cpu:.2f} s CPU, {1e6 * cpu / table.num_rows:.2f} µs/pair"
            )
            if repeat == 0 and save is not None:
                pq.write_table(table, save / f"{faction}-{chunk}.parquet")
            if repeat == 0 and compare is not None:
                before = pq.read_table(compare / f"{faction}-{chunk}.parquet").sort_by(ORDER)  # row order may differ
                line += f", largest difference {largest_difference(before, table.sort_by(ORDER)):.3g}"
            print(line, flush=True)
        print(f"repeat {repeat}: {cpu_total:.2f} s CPU, {1e6 * cpu_total / rows_total:.3f} µs/pair", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", type=Path, help="pickle of the unit options (written if missing)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    run(load_options(args.options), args.repeats, args.save, args.compare)


if __name__ == "__main__":
    main()
