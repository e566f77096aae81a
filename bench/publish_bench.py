"""The publish stage alone, on inputs saved once from a real run, so that two versions of the code can be
compared in turn (paired) without running the stages before it each time.

    python bench/publish_bench.py capture DIR [INPUT ...]   # one run (cache off, no unit x unit table):
                                                           # what write_release gets, pickled, and the
                                                           # staging folder as publish found it, into DIR
    python bench/publish_bench.py replay DIR OUT [CODE]    # write_release into OUT (a copy of the staging
                                                           # folder) with the code in CODE (default: this tree)

Replay prints wall and CPU seconds (every thread of the process) and the process's peak RSS as JSON. Compare two
trees by replaying each in turn a few times; compare their releases in OUT file by file.
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def capture(folder: Path, inputs: list[Path]) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATASLATE_CACHE"] = "off"
    import pipeline.run as run
    from bench.pipeline_bench import default_inputs
    from pipeline.publish.writer import write_release as real

    def saving(release: Path, *args: Any) -> Any:
        shutil.copytree(release, folder / "staging")
        with (folder / "args.pkl").open("wb") as handle:
            pickle.dump(args, handle)
        return real(release, *args)

    vars(run)["write_release"] = saving  # what run_pipeline calls
    folder.mkdir(parents=True, exist_ok=True)
    run.run_pipeline(inputs or default_inputs(), folder / "out", matchup_scenarios=())


def replay(folder: Path, out: Path, code: Path) -> dict[str, Any]:
    sys.path.insert(0, str(code))
    from pipeline.publish.writer import write_release

    with (folder / "args.pkl").open("rb") as handle:
        args = pickle.load(handle)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(folder / "staging", out)
    start, cpu = time.perf_counter(), _cpu_s()
    write_release(out, *args)
    return {
        "code": str(code),
        "s": round(time.perf_counter() - start, 2),
        "cpu_s": round(_cpu_s() - cpu, 2),
        "load": round(os.getloadavg()[0], 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main(argv: list[str]) -> None:
    if argv[:1] == ["capture"] and len(argv) >= 2:
        capture(Path(argv[1]), [Path(a) for a in argv[2:]])
    elif argv[:1] == ["replay"] and len(argv) in (3, 4):
        print(json.dumps(replay(Path(argv[1]), Path(argv[2]), Path(argv[3]) if len(argv) == 4 else ROOT)))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
