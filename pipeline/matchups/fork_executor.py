"""Partitions over a pool of forked processes that lives for the whole map (docs/units.md#partitions).

Every core works all the time, each process keeps its engines from one key to the next (rule caches warm),
and the processes write their own partition files (`local_files`), so only counts come back to the parent and
memory stays about one partition per process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, TypeVar

from pipeline.runtime import forked_tasks, release_free_heap

K = TypeVar("K")
V = TypeVar("V")


class ForkExecutor:
    """`map(function, keys)` on `workers` forked processes; the function need not be picklable (the processes
    inherit it), keys and results are pickled. One process or one key: in this process."""

    engine_workers = 1
    local_files = True  # the processes write into the same folders as the parent

    def __init__(self, workers: int = 2) -> None:
        self.workers = max(1, workers)

    def map(self, function: Callable[[K], V], keys: Sequence[K]) -> Iterator[tuple[K, V]]:
        if self.workers == 1 or len(keys) <= 1:
            for key in keys:
                yield key, function(key)
            return

        def task(key: K) -> V:
            release_free_heap()  # the previous task's freed heap
            return function(key)

        with forked_tasks(task, self.workers) as submit:
            waiting = list(keys)[::-1]
            running: dict[Future[Any], K] = {}
            while waiting or running:
                while waiting and len(running) <= self.workers:
                    key = waiting.pop()
                    running[submit(key)] = key
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: list(running).index(f)):
                    yield running.pop(future), future.result()
