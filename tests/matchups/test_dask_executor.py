"""The Dask executor (`pipeline/matchups/dask_executor.py`) on a local cluster of two worker processes started
here: the same `unit_matchups` part files, byte for byte, as the in-process run, and the protocol's contract."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from dask.distributed import LocalCluster

from pipeline import config
from pipeline.cache.parts import PartCache
from pipeline.damage.reference import reference_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.errors import PipelineError
from pipeline.loadouts.stage import loadouts_stage
from pipeline.matchups import partition
from pipeline.matchups.dask_executor import DaskExecutor
from pipeline.matchups.incremental import BASIS_KIND
from pipeline.matchups.loadout_stage import unit_loadouts_stage
from pipeline.matchups.partition import TABLE, InProcessExecutor, MatchupInputs, write_partitions
from pipeline.matchups.stage import matchup_options
from pipeline.reconcile.stage import reconcile_stage
from pipeline.run import run_pipeline
from pipeline.sources.registry import read_inputs
from pipeline.store import build_frames
from tests.matchups.test_incremental import _costed

# 24 options (21 targets): three pages factions with one attacker each, and the catalogue's 19 attackers, split
# by 100 pairs per file into five files of at most 4 attackers: 8 partitions per scenario.
CATALOGUE = "Chaos - Chaos Knights.cat"
MAX_PAIRS = 100
DATASLATE = Path(sys.executable).parent / "dataslate"


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local


@pytest.fixture(scope="module")
def dask(cluster: LocalCluster) -> Iterator[DaskExecutor]:
    with DaskExecutor(cluster.scheduler_address) as executor:
        yield executor


def _frames(inputs: list[Path]) -> dict[str, pl.DataFrame]:
    """The frames a run hands the matchups stage (as bench/matchups_bench.py builds them)."""
    dataset = read_inputs(inputs).dataset
    dataset = reconcile_stage(loadouts_stage(dedupe_stage(dataset).dataset).dataset).dataset
    return build_frames(reference_stage(unit_loadouts_stage(dataset).dataset).dataset)


@pytest.fixture(scope="module")
def inputs(bsdata_dir: Path) -> MatchupInputs:
    options = matchup_options(_frames([config.RAW_PAGES_DIR, bsdata_dir / CATALOGUE]))
    return MatchupInputs(options, workers=2, max_pairs=MAX_PAIRS)


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.parquet")}


@pytest.mark.slow  # ≈ 10 s: the 16 partitions computed twice
def test_dask_partitions_are_byte_identical(inputs: MatchupInputs, dask: DaskExecutor, tmp_path: Path) -> None:
    keys = inputs.keys(["default", "cover"])
    start = time.perf_counter()
    local = write_partitions(inputs, keys, tmp_path / "local", InProcessExecutor())
    local_s = time.perf_counter() - start
    remote_inputs = MatchupInputs(inputs.options, workers=dask.engine_workers, max_pairs=MAX_PAIRS)
    start = time.perf_counter()
    remote = write_partitions(remote_inputs, keys, tmp_path / "dask", dask)
    print(f"\n{len(keys)} partitions: in process {local_s:.2f} s, dask (2 workers) {time.perf_counter() - start:.2f} s")
    assert len(keys) == 16 and max(k.chunk for k in keys) == 4
    files = sorted(k.path(f) for k in keys for f in inputs.target_factions)
    assert sorted(w.path for w in remote) == sorted(w.path for w in local) == files
    assert sum(w.rows for w in remote) == sum(w.rows for w in local) > 0
    assert _digests(tmp_path / "dask") == _digests(tmp_path / "local")


@pytest.mark.slow  # ≈ 10 s
def test_dask_with_a_warm_cache_writes_the_in_process_files(
    inputs: MatchupInputs, dask: DaskExecutor, tmp_path: Path
) -> None:
    """The driver writes what the workers computed and keeps it in the cache (no shared file system)."""
    keys = inputs.keys(["default"])
    remote_inputs = MatchupInputs(inputs.options, workers=dask.engine_workers, max_pairs=MAX_PAIRS)
    first = PartCache(tmp_path / "cache", TABLE)
    write_partitions(remote_inputs, keys, tmp_path / "first", dask, first)
    assert first.kept == first.used and len(first.used) == len(keys) * len(inputs.target_factions)
    for blob in sorted((tmp_path / "cache" / "parts" / TABLE).glob("*.bin"))[:3]:
        blob.unlink()  # three files to compute again
    with pytest.warns(UserWarning, match="cache part ignored"):
        again = write_partitions(remote_inputs, keys, tmp_path / "again", dask, PartCache(tmp_path / "cache", TABLE))
    assert sum(not w.reused for w in again) == 3
    write_partitions(inputs, keys, tmp_path / "local", InProcessExecutor())
    assert _digests(tmp_path / "again") == _digests(tmp_path / "first") == _digests(tmp_path / "local")


def test_dask_with_a_change_of_costs_recosts_in_the_driver(
    inputs: MatchupInputs, dask: DaskExecutor, tmp_path: Path
) -> None:
    """The workers compute the bases with the files; a change of costs is re-costed by the driver (it reads the
    cache), no file computed, the bytes of a local run."""
    keys = inputs.keys(["default"])
    remote = MatchupInputs(inputs.options, workers=dask.engine_workers, max_pairs=MAX_PAIRS)
    caches = (PartCache(tmp_path / "cache", TABLE), PartCache(tmp_path / "cache", BASIS_KIND))
    write_partitions(remote, keys, tmp_path / "first", dask, *caches)
    assert caches[1].kept == set(caches[1].used) and len(caches[1].kept) == len(caches[0].kept)
    unit = next(o.unit_id for o in inputs.options if o.target is not None and o.sides and "+" not in o.unit_id)
    dearer = _costed(inputs.options, unit, 3.0)
    caches = (PartCache(tmp_path / "cache", TABLE), PartCache(tmp_path / "cache", BASIS_KIND))
    again = write_partitions(MatchupInputs(dearer, workers=1, max_pairs=MAX_PAIRS), keys, tmp_path / "again", dask,
                             *caches)  # fmt: skip
    assert all(w.reused or w.recosted for w in again) and sum(w.recosted for w in again) > 0
    write_partitions(MatchupInputs(dearer, max_pairs=MAX_PAIRS), keys, tmp_path / "local", InProcessExecutor())
    assert _digests(tmp_path / "again") == _digests(tmp_path / "local") != _digests(tmp_path / "first")


def _square_after(gate: Path, n: int) -> int:
    """n * n; key 20 only once `gate` exists (the test creates it after the first result arrived)."""
    deadline = time.monotonic() + 60
    while n == 20 and not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return n * n


def test_results_arrive_with_their_keys_in_finishing_order(dask: DaskExecutor, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    results = dask.map(lambda n: _square_after(gate, n), [20, 1, 2, 3])  # 20 waits until a short one arrived
    first = next(results)
    gate.touch()
    assert first[0] != 20
    assert sorted([first, *results]) == [(1, 1), (2, 4), (3, 9), (20, 400)]


def test_a_failing_partition_raises_in_the_caller(dask: DaskExecutor) -> None:
    with pytest.raises(ZeroDivisionError):
        list(dask.map(lambda k: 1 // k, [2, 1, 0]))


def test_no_scheduler_is_a_pipeline_error() -> None:
    with pytest.raises(PipelineError, match=r"no Dask scheduler at tcp://127\.0\.0\.1:9"):
        DaskExecutor("tcp://127.0.0.1:9", timeout=1.0).start()


def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DATASLATE), "run", *args], capture_output=True, text=True, check=False)


@pytest.mark.slow  # the client tries for its 10 s timeout
def test_run_with_an_unreachable_scheduler_fails_before_any_work(tmp_path: Path) -> None:
    proc = _run_cli("--out", str(tmp_path / "out"), "--executor", "dask", "--dask-scheduler", "tcp://127.0.0.1:9")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("error: no Dask scheduler at tcp://127.0.0.1:9 (")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # two whole runs
def test_run_on_dask_publishes_the_in_process_unit_matchups(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fresh engines, as a new process has: an engine's cache filled by other chunks of these units (the test
    # above) changes the last bits of later results (docs/dask.md#byte-identical-files)
    monkeypatch.setattr(partition, "_ENGINES", {})
    inputs = [config.RAW_PAGES_DIR, bsdata_dir / CATALOGUE]
    local = run_pipeline(inputs, tmp_path / "local").release
    proc = _run_cli(*(a for i in inputs for a in ("--input", str(i))), "--out", str(tmp_path / "dask"),
                    "--executor", "dask", "--dask-workers", "2")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    remote = (tmp_path / "dask" / config.LATEST_NAME).resolve()
    assert remote.name == local.name
    assert len(_digests(local / TABLE)) == 4  # default scenario, 4 attacking factions x 1 target faction
    assert _digests(remote / TABLE) == _digests(local / TABLE)


def test_without_dask_installed_the_executor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # what `import` meets when the module is absent
    with pytest.raises(PipelineError, match=r"needs dask\.distributed \(pip install 'dataslate\[dask\]'\)"):
        DaskExecutor()
