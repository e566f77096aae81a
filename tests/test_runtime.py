"""CPUs the process may use, the damage matrix's Parquet writers derived from them, safe forks, and the cyclic GC's
thresholds during a run."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pipeline import config, runtime
from pipeline.damage.expand import MAX_WRITERS, writer_threads
from pipeline.runtime import available_cpus


def test_available_cpus_follow_the_affinity_mask() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert available_cpus() == expected
    assert writer_threads() == min(available_cpus(), MAX_WRITERS)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity masks on this OS")
def test_a_process_pinned_to_one_cpu_writes_one_scenario_at_a_time() -> None:
    code = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))});"
        "from pipeline.damage.expand import writer_threads; from pipeline.runtime import available_cpus;"
        "print(available_cpus(), writer_threads())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=config.REPO_ROOT)
    assert out.stdout.split() == ["1", "1"]


def test_a_fork_pool_waits_for_background_work() -> None:
    """A process forked while another thread holds the import lock can hang: forks wait for such threads."""
    finished = threading.Event()
    thread = runtime.start_background(lambda: _sleep_then(finished), "slow-import")
    with runtime.fork_pool(1) as pool:
        assert finished.is_set() and not thread.is_alive()
        assert pool.submit(os.getpid).result() != os.getpid()


def _sleep_then(done: threading.Event) -> None:
    time.sleep(0.3)
    done.set()


def test_beside_gives_the_value_of_work_run_on_another_thread() -> None:
    caller = threading.get_ident()
    started = runtime.Beside(lambda: (threading.get_ident(), threading.current_thread().name), "beside-value")
    ident, name = started.result()
    assert ident != caller and name == "beside-value"


def test_beside_hands_its_value_over_and_keeps_no_reference() -> None:
    """The damage stage's blocks (≈ 0.3 GB) must be freed when the run drops them, not held here to its end."""
    started = runtime.Beside(_Blocks, "beside-handover")
    value = weakref.ref(started.result())
    gc.collect()
    assert value() is None
    with pytest.raises(RuntimeError, match="already taken"):
        started.result()


def test_beside_raises_the_error_of_its_work_in_the_caller() -> None:
    def broken() -> int:
        raise KeyError("no-such-column")

    started = runtime.Beside(broken, "beside-error")
    with pytest.raises(KeyError, match="no-such-column"):
        started.result()


def test_a_fork_pool_waits_for_work_beside() -> None:
    finished = threading.Event()
    runtime.Beside(lambda: _sleep_then(finished), "beside-slow")
    with runtime.fork_pool(1) as pool:
        assert finished.is_set()
        assert pool.submit(os.getpid).result() != os.getpid()


class _Blocks:
    """A value a weak reference can follow."""


def test_free_heap_goes_back_on_glibc() -> None:
    assert runtime.release_free_heap() is True
    assert runtime._malloc_trim.cache_info().currsize == 1  # looked up once, not per call


ALLOCATOR_PROBE = (
    "import pyarrow as pa; from pipeline.runtime import arrow_system_allocator; "
    "arrow_system_allocator(); print(pa.default_memory_pool().backend_name)"
)


@pytest.mark.parametrize(("chosen", "expected"), [(None, "system"), ("jemalloc", "jemalloc"), ("mimalloc", "mimalloc")])
def test_arrow_allocator_is_the_system_one_unless_the_user_chose_a_pool(chosen: str | None, expected: str) -> None:
    """In a fresh process (Arrow's pool is process-wide; its default here is mimalloc): the system allocator
    replaces Arrow's default, and a pool chosen with ARROW_DEFAULT_MEMORY_POOL stays."""
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen is not None:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run(
        [sys.executable, "-c", ALLOCATOR_PROBE], capture_output=True, text=True, env=env, cwd=root, check=True
    )
    assert run.stdout.strip() == expected


@pytest.mark.skipif(not Path("/proc/stat").exists() or available_cpus() < 2, reason="needs /proc and two CPUs")
def test_cpus_kept_busy_by_other_processes_are_not_idle() -> None:
    """The parse forks onto idle CPUs only: processes spinning on every CPU leave one (this process's own)."""
    from pipeline.sources.registry import idle_cpus

    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(available_cpus())]
    try:
        time.sleep(0.3)  # started and runnable
        assert runtime.busy_elsewhere() >= available_cpus()
        assert idle_cpus() == 1
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def test_gc_thresholds_hold_in_the_block_and_come_back_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(ValueError, match="stop"), runtime.gc_thresholds((5_000, 7, 9)):
        assert gc.get_threshold() == (5_000, 7, 9)
        raise ValueError("stop")
    assert gc.get_threshold() == before


@pytest.mark.slow
def test_a_run_holds_its_records_at_the_run_gc_thresholds(tmp_path: Path) -> None:
    from pipeline.run import run_pipeline

    seen: dict[str, tuple[int, int, int]] = {}

    @contextmanager
    def stage(name: str) -> Iterator[None]:
        seen[name] = gc.get_threshold()
        yield

    before = gc.get_threshold()
    run_pipeline(sorted(config.RAW_PAGES_DIR.glob("*.txt"))[:1], tmp_path / "out", stage=stage, matchup_scenarios=())
    assert set(seen.values()) == {runtime.RUN_GC_THRESHOLDS} != {before}
    assert {"parse inputs", "reconcile sources", "publish"} <= set(seen)
    assert gc.get_threshold() == before


def _huge_kb(address: int) -> int:
    """AnonHugePages of the mapping of this process that holds `address` (/proc/self/smaps)."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        first = line.split()[0]
        if "-" in first and not first.endswith(":"):
            start, end = (int(x, 16) for x in first.split("-"))
            inside = start <= address < end
        elif inside and first == "AnonHugePages:":
            return int(line.split()[1])
    raise AssertionError("no mapping holds the array")


@pytest.mark.skipif(not Path("/proc/self/smaps").is_file(), reason="no /proc")
def test_numpy_arrays_sit_on_small_pages_in_the_block_and_the_switch_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import numpy as np
    import numpy._core.multiarray as multiarray

    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    switch = multiarray._set_madvise_hugepage  # type: ignore[attr-defined]
    before = switch(True)  # NumPy's default: huge pages asked for
    try:
        with runtime.numpy_small_pages():
            filled = np.ones(16 << 20)  # 128 MiB, every page written
            assert _huge_kb(filled.ctypes.data + filled.nbytes // 2) == 0  # its middle (the head is a page apart)
        assert switch(True) is True  # the setting came back
        monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")  # the user's choice is kept
        with runtime.numpy_small_pages():
            assert switch(True) is True
    finally:
        switch(before)


ORPHAN_SCRIPT = """
import os, signal, sys, time
from pipeline.runtime import forked_process
child = forked_process(time.sleep, 60)
print(child.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie nobody reaped yet (it holds nothing any more)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in {"Z", "X"}


def test_a_forked_process_dies_with_its_killed_parent() -> None:
    """A process forked by `forked_process` (the hash-ahead one holds the output folder's lock it inherited) is
    killed when its parent is: a killed run leaves no process behind to keep its folder locked."""
    proc = subprocess.run([sys.executable, "-c", ORPHAN_SCRIPT], capture_output=True, text=True, cwd=config.REPO_ROOT)
    assert proc.returncode == -9
    child = int(proc.stdout.split()[0])
    deadline = time.monotonic() + 10
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)
