"""`make bench`: wall times (medians of several runs) and peak memory of the pipeline's stages.

Each part runs in a fresh child process so its peak RSS is its own. Figures are
printed, never asserted: machines here are noisy 2-core boxes.

    python bench/run.py                # every part
    python bench/run.py wahapedia bsdata   # some parts
    DATASLATE_BENCH_RELEASE=curated python bench/run.py queries   # the queries on an existing release
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 3


def _median_time(fn: Callable[[], Any], runs: int = RUNS) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def part_wahapedia() -> dict[str, Any]:
    """Parse + integrity + DuckDB + Parquet/NDJSON of the whole Wahapedia export."""
    from pipeline import config
    from pipeline.publish.factions import write_faction_documents
    from pipeline.publish.formats import write_feed
    from pipeline.sources.registry import read_inputs
    from pipeline.store import build_frames, load_duckdb
    from pipeline.store.parquet import write_parquet_tables

    def parse_and_publish() -> dict[str, float]:
        marks: dict[str, float] = {}
        start = time.perf_counter()
        dataset = read_inputs([config.wahapedia_dir()]).dataset
        marks["parse"] = time.perf_counter() - start
        frames = build_frames(dataset)
        marks["integrity"] = time.perf_counter() - start - sum(marks.values())
        with tempfile.TemporaryDirectory() as tmp:
            load_duckdb(frames, Path(tmp) / "b.duckdb")
            marks["duckdb"] = time.perf_counter() - start - sum(marks.values())
            write_parquet_tables(frames, Path(tmp))
            write_feed(frames, Path(tmp))
            write_faction_documents(frames, Path(tmp))
            marks["parquet+feed"] = time.perf_counter() - start - sum(marks.values())
        return marks

    runs = [parse_and_publish() for _ in range(RUNS)]
    stages = {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
    total = statistics.median(sum(r.values()) for r in runs)
    return {"median_total_s": round(total, 3), "median_stage_s": stages, "target_s": 10}


def part_bsdata() -> dict[str, Any]:
    """Parse every BSData catalogue in the folder (the 24 shared files: walk, points, saves, self-check)."""
    from pipeline import config
    from pipeline.sources.registry import read_inputs

    folder = config.bsdata_dir()
    cpu_start = time.process_time()
    seconds, result = _median_time(lambda: read_inputs([folder]))
    cpu = (time.process_time() - cpu_start) / RUNS
    files = sorted(p.name for p in folder.iterdir() if p.suffix in {".cat", ".gst"})
    checks: dict[str, dict[str, int]] = {}
    for report in result.report.files:
        for check in report.checks:
            total = checks.setdefault(check["check_name"], {})
            for column in ("expected", "published", "explained", "unexplained"):
                total[column] = total.get(column, 0) + check[column]
    return {
        "median_s": round(seconds, 3),
        "mean_cpu_s": round(cpu, 3),
        "files": len(files),
        "counts": result.dataset.counts(),
        "checks": checks,
        "target_s": 10,
        "target_rss_mb": 1500,
    }


def part_bsdata_cache() -> dict[str, Any]:
    """The BSData folder through the cache file by file: cold, unchanged, one catalogue changed, a library changed."""
    from bench.bsdata_cache_bench import run

    return run()


def _parse_cpu_seconds(pause: bool) -> dict[str, Any]:
    """One Wahapedia parse in this fresh process (cold caches, as in a run), CPU seconds (steady under load)."""
    from contextlib import nullcontext

    from pipeline import config, runtime
    from pipeline.sources.wahapedia import parser

    if not pause:
        runtime.cyclic_gc_paused = nullcontext  # type: ignore[assignment]
    start = time.process_time()
    parser.read_export(config.wahapedia_dir())
    return {"cpu_s": time.process_time() - start}


def part_gc_pause() -> dict[str, Any]:
    """Wahapedia parse with the cyclic GC paused (as shipped) and collecting, each run in its own process."""
    runs: dict[str, list[float]] = {"paused": [], "collecting": []}
    for _ in range(RUNS):
        for name, times in runs.items():
            times.append(run_child(f"gc_{name}")["cpu_s"])
    return {f"median_cpu_s_{name}": round(statistics.median(times), 3) for name, times in runs.items()}


def part_quality() -> dict[str, Any]:
    """GX quality gates on the Wahapedia export's store, damage matrix included (import of GX included once),
    and the damage matrix's summary query alone (DuckDB over every cell)."""
    from pipeline import config
    from pipeline.damage.reference import reference_stage
    from pipeline.damage.stage import damage_stage
    from pipeline.quality.batches import existing_tables, summary_query
    from pipeline.quality.stage import quality_gate
    from pipeline.quality.suites import load_suite
    from pipeline.sources.registry import read_inputs
    from pipeline.store import build_frames, open_store, store_stage

    frames = build_frames(reference_stage(read_inputs([config.wahapedia_dir()]).dataset).dataset)
    with tempfile.TemporaryDirectory() as tmp:
        store_stage(frames, damage_stage(frames), Path(tmp))
        start = time.perf_counter()
        import great_expectations  # noqa: F401

        import_s = time.perf_counter() - start
        seconds, _ = _median_time(lambda: quality_gate(Path(tmp)))
        suite = load_suite(config.EXPECTATIONS_DIR / "damage_matrix.json")
        with open_store(Path(tmp) / config.DUCKDB_FILENAME) as con:
            con.execute("SET enable_progress_bar = false")
            query = summary_query(suite, existing_tables(con))
            summary_s, _ = _median_time(lambda: con.sql(query).fetchall())
    return {"gx_import_s": round(import_s, 3), "median_s": round(seconds, 3), "damage_summary_s": round(summary_s, 3)}


def part_damage() -> dict[str, Any]:
    from bench.damage_bench import run_damage_bench
    from pipeline import config

    result: dict[str, Any] = run_damage_bench(config.wahapedia_dir())
    return result


def part_damage_corpora() -> dict[str, Any]:
    """The damage stage (per-weapon engine + models_slain / wounds_lost) on pages + Wahapedia + BSData."""
    from bench.damage_corpora import run_corpora_bench

    return run_corpora_bench()


def part_units() -> dict[str, Any]:
    """Unit-against-unit engine on a synthetic grid, against plain Python and warhammer-stats."""
    from bench.units_bench import run_units_bench

    return run_units_bench()


def part_matchups() -> dict[str, Any]:
    """The default-scenario unit_matchups table of the three corpora (golden units and Leader pairs)."""
    from bench.matchups_bench import run_matchups_bench

    return run_matchups_bench()


def part_reconcile() -> dict[str, Any]:
    from pipeline import config
    from pipeline.reconcile.stage import reconcile_stage
    from pipeline.sources.registry import read_inputs

    inputs = [config.RAW_PAGES_DIR, config.wahapedia_dir(), config.bsdata_dir()]
    dataset = read_inputs(inputs).dataset
    start = time.perf_counter()
    report = reconcile_stage(dataset).report.as_dict()
    seconds = time.perf_counter() - start
    rates = {pair: r["total"] for pair, r in report.get("match_rates", {}).items()}
    scalars = {k: v for k, v in report.items() if isinstance(v, int | float | str)}
    return {"seconds": round(seconds, 3), **scalars, "match_rates": rates}


def part_queries() -> dict[str, Any]:
    """README queries and views on a release of the three corpora (DATASLATE_BENCH_RELEASE, or built)."""
    from bench.queries_bench import run_queries_bench

    return run_queries_bench()


def part_site() -> dict[str, Any]:
    """The explorer's site for the three corpora: build time, pages, MB (DATASLATE_BENCH_RELEASE, or built)."""
    from bench.site_bench import run_site_bench

    return run_site_bench()


#: Issue 14's "peak RSS ≤ 3 GB", in the MiB `peak_rss_mb` is measured in, read either way: 3 GiB and 3 × 10⁹ bytes.
PEAK_RSS_TARGETS = {"peak_rss_mb": 3072, "peak_rss_mb_if_3e9_bytes": 2861}


def part_pipeline() -> dict[str, Any]:
    """`dataslate run` on pages + Wahapedia + the shared BSData: every stage (publish included) with RSS,
    then the unchanged rerun (the cache reuses the release)."""
    from bench.pipeline_bench import default_inputs, run_once

    with tempfile.TemporaryDirectory(prefix="dataslate-bench-") as tmp:
        cold = run_once(default_inputs(), Path(tmp) / "out")
        start = time.perf_counter()
        again = run_once(default_inputs(), Path(tmp) / "out")
        rerun = {"s": round(time.perf_counter() - start, 2), "reused": again["reused"]}
    return {"cold": cold, "unchanged_rerun": rerun, "targets": {"cold_s": 45, "publish_s": 10, **PEAK_RSS_TARGETS}}


def part_incremental() -> dict[str, Any]:
    """A refresh on a copy of the shared BSData: cold, unchanged rerun, one catalogue's points changed (its
    stages, what was parsed again and which partitions the cache gave; bench/incremental.py)."""
    from bench.incremental import run_incremental

    return run_incremental()


def part_scale() -> dict[str, Any]:
    """Peak RSS against output size: `dataslate run` on pages + Wahapedia + a 1x and a 4x synthetic BSData corpus
    (every shared catalogue k times, bench/synth_corpus.py; no unit x unit table, cache off), each in its own
    process: memory should grow no faster than the output, and stay under the 3 GB bound (≈ 8 min)."""
    from bench.synth_corpus import build
    from pipeline import config

    runs = {}
    env = {**os.environ, "DATASLATE_CACHE": "off", "DATASLATE_BENCH_UNIT_MATCHUPS": "none"}
    with tempfile.TemporaryDirectory(prefix="dataslate-scale-") as tmp:
        for factor in (1, 4):
            folder = build(Path(tmp) / f"x{factor}", factor, config.bsdata_dir())
            inputs = [str(config.RAW_PAGES_DIR), str(config.wahapedia_dir()), str(folder)]
            proc = subprocess.run(
                [sys.executable, str(ROOT / "bench" / "pipeline_bench.py"), *inputs],
                capture_output=True, text=True, cwd=ROOT, check=True, env=env,
            )  # fmt: skip
            runs[f"x{factor}"] = json.loads(proc.stdout)
    small, large = runs["x1"], runs["x4"]
    grown = ("damage_matrix_rows", "release_mb", "peak_rss_mb", "total_s")
    ratios = {f: round(large[f] / max(small[f], 1e-9), 2) for f in grown}
    fields = ("total_s", "total_cpu_s", "peak_rss_mb", "helpers_peak_rss_mb", "damage_matrix_rows", "release_mb")
    summary = {
        k: {
            **{f: r[f] for f in fields},
            # the run's own peak and its helper processes' (docs/scaling.md#the-helper-process), as if at once
            "peak_rss_with_helpers_mb": round(r["peak_rss_mb"] + r["helpers_peak_rss_mb"], 1),
            "stage_peak_mb": {s: v["peak_mb"] for s, v in r["stages"].items()},
        }
        for k, r in runs.items()
    }
    return {"runs": summary, "ratios_4x_over_1x": ratios, "targets": PEAK_RSS_TARGETS}


PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "pipeline": part_pipeline,
    "incremental": part_incremental,
    "scale": part_scale,
    "wahapedia": part_wahapedia,
    "bsdata": part_bsdata,
    "bsdata_cache": part_bsdata_cache,
    "reconcile": part_reconcile,
    "gc_pause": part_gc_pause,
    "quality": part_quality,
    "damage": part_damage,
    "damage_corpora": part_damage_corpora,
    "units": part_units,
    "matchups": part_matchups,
    "queries": part_queries,
    "site": part_site,
}


#: Parts run only as children of another part.
CHILD_PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "gc_paused": lambda: _parse_cpu_seconds(pause=True),
    "gc_collecting": lambda: _parse_cpu_seconds(pause=False),
}


def run_child(name: str) -> dict[str, Any]:
    """Run one part in a child process; add its peak RSS."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", name], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"]}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        result = {**PARTS, **CHILD_PARTS}[argv[1]]()
        result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        print(json.dumps(result, default=str))
        return
    for name in argv or list(PARTS):
        print(f"== {name}", flush=True)
        print(json.dumps(run_child(name), indent=2, default=str), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
