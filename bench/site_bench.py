"""The explorer's site for the three corpora: build time (median of a few builds into fresh folders), pages,
bytes on disk. The frames are the release's Parquet tables (`DATASLATE_BENCH_RELEASE`, or a release built
first, as the queries part does). Targets from issue 15: at most 60 MB, at most 10 s."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

from bench.queries_bench import _release

TARGET_S = 10.0
TARGET_MB = 60.0
RUNS = 3


def _frames(release: Path) -> dict[str, pl.DataFrame]:
    return {p.stem: pl.read_parquet(p) for p in release.glob("*.parquet") if p.stem != "damage_matrix"}


def _disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def run_site_bench() -> dict[str, Any]:
    from pipeline.publish.site.build import SITE_DIR, write_site

    release, tmp = _release()
    try:
        frames = _frames(release)
        version = release.name
        times, report, size = [], None, 0
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory(prefix="dataslate-site-") as out:
                start = time.perf_counter()
                report = write_site(frames, Path(out), version)
                times.append(time.perf_counter() - start)
                size = _disk_bytes(Path(out) / SITE_DIR)
        assert report is not None
        return {"median_s": round(statistics.median(times), 2), "pages": report.pages,
                "mb": round(size / 1e6, 1), "target": {"seconds": TARGET_S, "mb": TARGET_MB}}  # fmt: skip
    finally:
        if tmp is not None:
            tmp.cleanup()
