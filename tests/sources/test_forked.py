"""Jobs on forked processes: each result taken by its key, as the in-process path gives it, errors included;
writes on forked processes, waited for at the block's end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.sources.forked import ForkedJobs, ForkedWrites, can_fork
from pipeline.sources.inputs import InputRefused

needs_fork = pytest.mark.skipif(not can_fork(), reason="no fork on this platform")


@pytest.mark.parametrize("processes", [0, 1, 2])
def test_results_are_taken_by_key_whatever_the_order(processes: int) -> None:
    offset = 7  # a closure: the processes inherit it, nothing is pickled but keys and results
    keys = [5, 1, 4, 2, 3]
    with ForkedJobs(lambda key: key * key + offset, keys, processes) as jobs:
        assert [jobs.result(key) for key in sorted(keys)] == [8, 11, 16, 23, 32]


@needs_fork
@pytest.mark.parametrize(
    ("processes", "keys", "elsewhere"), [(2, [1, 2, 3], True), (1, [1, 2, 3], True), (0, [1, 2, 3], False)]
)
def test_jobs_run_in_forked_processes_only_when_asked_for(processes: int, keys: list[int], elsewhere: bool) -> None:
    here = os.getpid()
    with ForkedJobs(lambda key: os.getpid(), keys, processes) as jobs:
        pids = {jobs.result(key) for key in keys}
    assert (here not in pids) is elsewhere


@needs_fork
def test_a_job_failing_in_a_forked_process_raises_its_own_error_here(tmp_path: Path) -> None:
    def refuse(key: int) -> int:
        if key == 2:  # InputRefused does not survive pickling (its arguments are not its message)
            raise InputRefused("a FIFO, not a regular file", tmp_path / "fifo")
        return key

    with ForkedJobs(refuse, [1, 2, 3], 2) as jobs:
        assert jobs.result(1) == 1
        with pytest.raises(InputRefused, match="input refused: a FIFO"):
            jobs.result(2)
        assert jobs.result(3) == 3


@needs_fork
def test_writes_run_on_forked_processes_and_are_done_when_the_block_ends(tmp_path: Path) -> None:
    here = os.getpid()
    with ForkedWrites() as writes:
        for name in ("a", "b"):
            writes.submit(lambda name=name: (tmp_path / name).write_text(f"{name} {os.getpid()}"))  # type: ignore[misc]
    texts = {p.name: p.read_text().split() for p in tmp_path.iterdir()}
    assert sorted(texts) == ["a", "b"]
    assert all(name == text[0] and int(text[1]) != here for name, text in texts.items())


@needs_fork
def test_a_write_failing_in_a_forked_process_is_made_again_here(tmp_path: Path) -> None:
    here = os.getpid()

    def write() -> None:
        if os.getpid() != here:
            os._exit(3)  # the forked process dies
        (tmp_path / "entry").write_text("written here")

    with ForkedWrites() as writes:
        writes.submit(write)
    assert (tmp_path / "entry").read_text() == "written here"


def test_a_write_failing_everywhere_raises_its_own_error_at_the_end_of_the_block(tmp_path: Path) -> None:
    def refuse() -> None:
        raise InputRefused("a FIFO, not a regular file", tmp_path / "fifo")

    with pytest.raises(InputRefused, match="input refused: a FIFO"), ForkedWrites() as writes:
        writes.submit(refuse)
