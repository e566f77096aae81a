"""The matchups stage with its part cache (docs/units.md#incremental-files-and-pieces-cached-by-content): cold
with a cache, then one BSData catalogue changed with the cache warm, then the changed inputs cold without a
cache. Wall and CPU seconds (the process and its forked workers), files and pieces reused and computed, the
unit options the change reached, and the warm run's files and `unit_vs_reference` checked byte for byte against
the cold run's. Engines and shared counts are cleared before each stage, as in a new process.

    python -m bench.matchups_cache_bench [--catalogue "Necrons.cat"] [--change points|toughness]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config

POINTS = re.compile(r'(<cost name="pts" typeId="[^"]+" value=")([1-9]\d*)(")')
TOUGHNESS = re.compile(r'(<characteristic name="T" [^>]*>)(\d+)')


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _frames(bsdata: Path) -> dict[str, pl.DataFrame]:
    from pipeline.damage.reference import reference_stage
    from pipeline.dedupe.stage import dedupe_stage
    from pipeline.loadouts.stage import loadouts_stage
    from pipeline.matchups.loadout_stage import unit_loadouts_stage
    from pipeline.reconcile.stage import reconcile_stage
    from pipeline.sources.registry import read_inputs
    from pipeline.store import build_frames

    dataset = read_inputs([config.RAW_PAGES_DIR, config.wahapedia_dir(), bsdata]).dataset
    dataset = reconcile_stage(loadouts_stage(dedupe_stage(dataset).dataset).dataset).dataset
    return build_frames(reference_stage(unit_loadouts_stage(dataset).dataset).dataset)


def _change(path: Path, change: str) -> None:
    pattern = POINTS if change == "points" else TOUGHNESS
    text, found = pattern.subn(lambda m: f"{m[1]}{int(m[2]) + (5 if change == 'points' else 1)}" + (
        m[3] if change == "points" else ""), path.read_text(encoding="utf-8"), count=1)  # fmt: skip
    assert found == 1, f"no {change} value in {path.name}"
    path.write_text(text, encoding="utf-8")


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.parquet")}


def _stage(frames: dict[str, pl.DataFrame], release: Path, cache: Path | None) -> tuple[dict[str, Any], Any]:
    from pipeline.matchups import partition
    from pipeline.matchups.stage import matchups_stage
    from pipeline.units.count_cache import SHARED

    partition._ENGINES.clear()
    SHARED.clear()
    wall, cpu = time.perf_counter(), _cpu()
    outcome = matchups_stage(frames, release, cache=cache)
    figures = {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(_cpu() - cpu, 1)}
    figures |= {"files": outcome.report.partitions, "rows": outcome.report.rows, **outcome.cache.__dict__}
    if cache is not None:
        figures["pruned"] = outcome.prune()
    return figures, outcome


def _changed_options(before: dict[str, pl.DataFrame], after: dict[str, pl.DataFrame]) -> dict[str, Any]:
    from pipeline.cache.fingerprint import ValueDigest
    from pipeline.matchups.stage import matchup_options

    old = {(o.unit_id, o.models): ValueDigest().hexdigest(o) for o in matchup_options(before)}
    new = {(o.unit_id, o.models): ValueDigest().hexdigest(o) for o in matchup_options(after)}
    changed = sorted(f"{u}@{m}" for (u, m), d in new.items() if old.get((u, m)) != d)
    return {"options_changed": len(changed), "examples": changed[:6], "options": len(new)}


def _table_bytes(frame: pl.DataFrame) -> bytes:
    sink = io.BytesIO()
    frame.write_parquet(sink, statistics=False)
    return sink.getvalue()


def run(catalogue: str, change: str) -> dict[str, Any]:
    out: dict[str, Any] = {"catalogue": catalogue, "change": change}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bsdata"
        shutil.copytree(config.bsdata_dir(), folder)
        before = _frames(folder)
        _change(folder / catalogue, change)
        after = _frames(folder)
        out["reached"] = _changed_options(before, after)
        cache = Path(tmp) / "cache"
        out["cold_with_cache"], _ = _stage(before, Path(tmp) / "first", cache)
        out["warm_one_changed"], warm = _stage(after, Path(tmp) / "warm", cache)
        out["cold_no_cache"], cold = _stage(after, Path(tmp) / "cold", None)
        out["warm_files_equal_cold"] = _digests(Path(tmp) / "warm") == _digests(Path(tmp) / "cold")
        out["warm_vs_reference_equal_cold"] = _table_bytes(warm.vs_reference) == _table_bytes(cold.vs_reference)
        out["cache_mb"] = round(sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) / 1e6, 1)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogue", default="Necrons.cat")
    parser.add_argument("--change", choices=("points", "toughness"), default="points")
    args = parser.parse_args()
    print(json.dumps(run(args.catalogue, args.change), indent=2))
