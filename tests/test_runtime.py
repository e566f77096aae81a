"""CPUs the process may use, and the damage matrix's Parquet writers derived from them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pipeline import config
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
