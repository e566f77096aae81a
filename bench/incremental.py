"""A maintainer's refresh: a cold run, the unchanged rerun, then one catalogue changed (the first points value
of one catalogue, +1), each with its stages, the inputs parsed and the partitions the cache gave.

    python bench/incremental.py [CATALOGUE]   # default: the largest catalogue of the shared BSData folder

Each run is a process of its own, as `dataslate run` is (and ends as it does, `runtime.exit_now`): a run in
the process of an earlier one would find Great Expectations and every module already loaded. `total_s` is the
run itself, `process_s` the whole process (interpreter, imports and exit included).
Runs on a copy of the shared BSData folder (the shared data is read-only) with pages and Wahapedia; the unit x
unit table as `bench/pipeline_bench.py` chooses it (DATASLATE_BENCH_UNIT_MATCHUPS). Printed as JSON.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_POINTS = re.compile(rb'(<cost\b[^>]*\bname="pts"[^>]*\bvalue=")(\d+)')

#: The argument that makes this script one run of the bench (in its own process): `--one OUT INPUT...`.
ONE_RUN = "--one"


def change_points(catalogue: Path) -> str:
    """The catalogue's first points value, +1, in place; returns what changed (`95 -> 96`)."""
    text = catalogue.read_bytes()
    found = _POINTS.search(text)
    if found is None:
        raise SystemExit(f"no points value in {catalogue}")
    new = int(found[2]) + 1
    catalogue.write_bytes(text[: found.start(2)] + str(new).encode() + text[found.end(2) :])
    return f"{found[2].decode()} -> {new}"


def _summary(run: dict[str, Any], result: Any) -> dict[str, Any]:
    return {
        "total_s": run["total_s"],
        "total_cpu_s": run["total_cpu_s"],
        "peak_rss_mb": run["peak_rss_mb"],
        "helpers_peak_rss_mb": run["helpers_peak_rss_mb"],
        "reused": run["reused"],
        "stages": {name: stage["s"] for name, stage in run["stages"].items()},
        "inputs_parsed": len(result.inputs_parsed),
        "inputs_from_cache": len(result.inputs_from_cache),
        "partitions": {
            kind: {"computed": c, "from_cache": r, "recosted": result.recosted.get(kind, 0)}
            for kind, (c, r) in result.partitions.items()
        },
    }


def one_run(out: Path, inputs: list[Path]) -> dict[str, Any]:
    """`run_pipeline` once, in this process, timed stage by stage."""
    from bench.pipeline_bench import StageClock, cpu_s, peak_rss_mb, unit_matchup_scenarios
    from pipeline.helper_process import helpers_peak_rss_mb
    from pipeline.run import run_pipeline

    clock = StageClock()
    start, cpu = time.perf_counter(), cpu_s()
    result = run_pipeline(inputs, out, stage=clock, matchup_scenarios=unit_matchup_scenarios())
    run = {"total_s": round(time.perf_counter() - start, 2), "total_cpu_s": round(cpu_s() - cpu, 2)}
    helpers = helpers_peak_rss_mb()
    summary = {**run, "peak_rss_mb": peak_rss_mb(), "helpers_peak_rss_mb": helpers, "reused": result.reused}
    return _summary({**summary, "stages": clock.stages}, result)


def _in_own_process(out: Path, inputs: list[Path]) -> dict[str, Any]:
    """`one_run` in a new interpreter; its summary and the whole process's wall time."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, ONE_RUN, str(out), *map(str, inputs)], capture_output=True, text=True
    )
    elapsed = round(time.perf_counter() - start, 2)
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return {"process_s": elapsed, **json.loads(done.stdout.splitlines()[-1])}


def run_incremental(catalogue: str | None = None) -> dict[str, Any]:
    from pipeline import config

    with tempfile.TemporaryDirectory(prefix="dataslate-incremental-") as tmp:
        bsdata = Path(tmp) / "bsdata"
        shutil.copytree(config.bsdata_dir(), bsdata)
        for path in bsdata.iterdir():
            path.chmod(0o644)
        inputs, out = [config.RAW_PAGES_DIR, config.wahapedia_dir(), bsdata], Path(tmp) / "out"
        chosen = bsdata / catalogue if catalogue else max(bsdata.glob("*.cat"), key=lambda p: p.stat().st_size)
        runs = {"cold": _in_own_process(out, inputs), "unchanged": _in_own_process(out, inputs)}
        changed = change_points(chosen)
        runs["one_catalogue_changed"] = {"catalogue": chosen.name, "points": changed, **_in_own_process(out, inputs)}
    return {**runs, "targets": {"unchanged_s": 5, "one_catalogue_changed_s": 15}}


if __name__ == "__main__":
    if sys.argv[1:2] == [ONE_RUN]:
        from pipeline.runtime import exit_now

        print(json.dumps(one_run(Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]])))
        exit_now(0)  # as the console script ends
    else:
        print(json.dumps(run_incremental(*sys.argv[1:2]), indent=2))
