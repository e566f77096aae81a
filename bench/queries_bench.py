"""The README's example queries and the views, on a release of the three corpora: time and memory.

Each query runs in a fresh child process (`python -m bench.queries_bench RELEASE N`) so its peak RSS is
its own: the sandboxed connection `dataslate sql` opens (`open_release`), the query run three times,
the median wall time of fetching every row. The release is `DATASLATE_BENCH_RELEASE` when set (a release
or output folder), else one is built from the three corpora into a temporary folder (minutes, ~8 GB).
The target (issue 12): under 2 s and under 1 GB per query.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNS = 3
TARGET_S, TARGET_MB = 2.0, 1024


def readme_queries() -> list[str]:
    """The statements of the README's `Example queries` block, comments dropped."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"### Example queries.*?```sql\n(.*?)```", text, re.DOTALL)
    body = block.group(1) if block else ""
    sql = "\n".join(line for line in body.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in sql.split(";") if s.strip()]


def view_queries() -> list[str]:
    """Every view read whole (counted), and the views' first thousand rows fetched."""
    views = ("v_unit_cards", "v_weapon_profiles", "v_weapon_vs_reference", "v_quarantine_summary")
    return [f"select count(*) from {v}" for v in views] + [f"select * from {v} limit 1000" for v in views]


def queries() -> list[str]:
    return readme_queries() + view_queries()


def _child(release: Path, index: int) -> dict[str, Any]:
    from pipeline.publish.query import open_release

    sql = queries()[index]
    con = open_release(release)
    try:
        times, rows = [], 0
        for _ in range(RUNS):
            start = time.perf_counter()
            rows = len(con.execute(sql).fetchall())
            times.append(time.perf_counter() - start)
    finally:
        con.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"median_s": round(statistics.median(times), 3), "rows": rows, "peak_rss_mb": round(peak_mb, 1)}


def _release() -> tuple[Path, tempfile.TemporaryDirectory[str] | None]:
    given = os.environ.get("DATASLATE_BENCH_RELEASE")
    if given:
        return Path(given), None
    from pipeline import config
    from pipeline.run import run_pipeline

    tmp = tempfile.TemporaryDirectory(prefix="dataslate-bench-")
    inputs = [config.RAW_PAGES_DIR, config.wahapedia_dir(), config.bsdata_dir()]
    # without the unit x unit table: part `matchups` measures it
    return run_pipeline(inputs, Path(tmp.name) / "out", matchup_scenarios=()).release, tmp


def run_queries_bench() -> dict[str, Any]:
    release, tmp = _release()
    try:
        results = {}
        for index, sql in enumerate(queries()):
            proc = subprocess.run(
                [sys.executable, "-m", "bench.queries_bench", str(release), str(index)],
                capture_output=True, text=True, cwd=ROOT, check=False,
            )  # fmt: skip
            outcome = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}
            results[" ".join(sql.split())[:90]] = outcome
        slowest = max((r.get("median_s", 0.0) for r in results.values()), default=0.0)
        largest = max((r.get("peak_rss_mb", 0.0) for r in results.values()), default=0.0)
        return {"queries": results, "slowest_s": slowest, "largest_peak_rss_mb": largest,
                "target": {"seconds": TARGET_S, "rss_mb": TARGET_MB}}  # fmt: skip
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    print(json.dumps(_child(Path(sys.argv[1]), int(sys.argv[2]))))
