"""Parse jobs started at once on forked processes while this process goes on with its own work, each result
taken by its key (so the order the processes finish in changes nothing; docs/sources.md#parallel-parse), and
cache writes made on forked processes while this one goes on (`ForkedWrites`).

Where there is no `fork` or no process is asked for, `result` runs the job here. A job that fails in a forked
process (or a process that dies) is run again here, so its error is the one the in-process path raises.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Any, Generic, TypeVar

from pipeline.runtime import forked_tasks

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class ForkedJobs(Generic[K, V]):
    """`function(key)` for every key, on `processes` forked processes started when the block opens (keys are
    submitted in the order given: put the longest first); `result(key)` waits for one."""

    def __init__(self, function: Callable[[K], V], keys: Sequence[K], processes: int) -> None:
        self.function = function
        self.keys = list(keys)
        self.processes = min(processes, len(self.keys)) if can_fork() else 0
        self._pool = contextlib.ExitStack()
        self._futures: dict[K, Future[Any]] = {}

    def __enter__(self) -> ForkedJobs[K, V]:
        if self.processes > 0:
            submit = self._pool.enter_context(forked_tasks(self.function, self.processes))
            self._futures = {key: submit(key) for key in self.keys}
        return self

    def result(self, key: K) -> V:
        future = self._futures.pop(key, None)
        if future is not None:
            with contextlib.suppress(Exception):  # else run here again: the error the in-process path raises
                result: V = future.result()
                return result
        return self.function(key)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._pool.close()


class ForkedWrites:
    """`submit(write)` runs `write()` on a process forked now, which holds what this one holds (nothing is
    pickled); the block's end waits for every write, and one whose process failed is run again here, so its
    error is the one the in-process path raises. Without `fork`, `submit` writes here."""

    def __init__(self) -> None:
        self._started: list[tuple[BaseProcess, Callable[[], None]]] = []

    def __enter__(self) -> ForkedWrites:
        return self

    def submit(self, write: Callable[[], None]) -> None:
        if not can_fork():
            write()
            return
        process = multiprocessing.get_context("fork").Process(target=write)
        process.start()
        self._started.append((process, write))

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        started, self._started = self._started, []
        for process, write in started:
            process.join()
            if process.exitcode != 0 and kind is None:
                write()
