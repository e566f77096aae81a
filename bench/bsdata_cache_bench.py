"""BSData folder parsed with the cache file by file (docs/sources.md#incremental): cold, unchanged, one catalogue
changed, a library changed; CPU and wall seconds and the files parsed, each result checked against a cold parse.

    python bench/bsdata_cache_bench.py
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import config
from pipeline.sources.registry import ParseResult, read_inputs

POINTS = re.compile(r'(<cost name="pts" typeId="[^"]+" value=")(\d+)(")')
#: A catalogue nothing links, and a library a catalogue links (picked by their role in the shared folder).
CHANGES = ("Necrons.cat", "Imperium - Astra Militarum - Library.cat")


def _timed(folder: Path, cache: Path | None) -> tuple[dict[str, Any], ParseResult]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = read_inputs([folder], cache)
    figures = {
        "cpu_s": round(time.process_time() - cpu, 2),
        "wall_s": round(time.perf_counter() - wall, 2),
        "files_parsed": len(result.parsed) if cache is not None else "all",
        "items_or_files_reused": len(result.reused),
    }
    return figures, result


def _same(a: ParseResult, b: ParseResult) -> bool:
    return dict(a.dataset.tables()) == dict(b.dataset.tables()) and a.report.as_dict() == b.report.as_dict()


def _raise_points(path: Path) -> None:
    path.write_text(POINTS.sub(lambda m: f"{m[1]}{int(m[2]) + 5}{m[3]}", path.read_text(), count=1))


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bsdata"
        shutil.copytree(config.bsdata_dir(), folder)
        for path in folder.iterdir():
            path.chmod(0o644)
        cache = Path(tmp) / "cache"
        out["plain"], plain = _timed(folder, None)
        out["cold_with_cache"], first = _timed(folder, cache)
        out["unchanged"], again = _timed(folder, cache)
        out["cached_equal_cold"] = _same(first, plain) and _same(again, plain)
        for name in CHANGES:
            if not (folder / name).is_file():
                continue
            _raise_points(folder / name)
            figures, changed = _timed(folder, cache)
            figures["parsed"] = sorted(Path(p).name for p in changed.parsed)
            figures["equal_cold"] = _same(changed, _timed(folder, None)[1])
            out[f"changed {name}"] = figures
        out["cache_mb"] = {
            kind.name: round(sum(p.stat().st_size for p in kind.iterdir()) / 2**20, 1) for kind in cache.iterdir()
        }
    return out


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
