"""CPUs the process may use, the damage matrix's Parquet writers derived from them, and safe forks."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

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
