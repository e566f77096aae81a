"""The `Executor` protocol on a Dask cluster (optional extra `dataslate[dask]`, docs/dask.md).

The function (with the inputs it closes over) is scattered once to every worker; each key is one task; results
come back as they finish, so the caller writes one partition at a time. Dask is imported only when used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

from pipeline.errors import PipelineError

K = TypeVar("K")
V = TypeVar("V")


def _distributed() -> Any:
    try:
        import dask.distributed
    except ImportError as error:
        raise PipelineError(
            "the dask executor needs dask.distributed", context="pip install 'dataslate[dask]'"
        ) from error
    return dask.distributed


def _call(function: Callable[[K], V], key: K) -> V:
    """Runs on a worker: `function` arrives once per worker (scattered), the key once per task."""
    return function(key)


class DaskExecutor:
    """Partitions as Dask tasks: on the cluster at `scheduler`, else on a local cluster of `workers` processes.

    Each worker process runs one task at a time with the engine serial (`engine_workers`): the cluster's
    processes are the parallelism, and a Dask worker may not fork its own pool.
    """

    engine_workers = 1

    def __init__(self, scheduler: str | None = None, workers: int = 2, timeout: float = 10.0) -> None:
        self.distributed = _distributed()
        self.scheduler = scheduler
        self.workers = workers
        self.timeout = timeout
        self._client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> DaskExecutor:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> Any:
        """The client (connected, or with its local cluster started) on first use."""
        if self._client is None:
            if self.scheduler is None:
                self._cluster = self.distributed.LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None,
                )  # fmt: skip
                self._client = self.distributed.Client(self._cluster)
            else:
                self._client = self._connect(self.scheduler)
        return self._client

    def _connect(self, address: str) -> Any:
        try:
            return self.distributed.Client(address, timeout=self.timeout)
        except OSError as error:
            raise PipelineError(f"no Dask scheduler at {address}", context=str(error)) from error

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None

    def map(self, function: Callable[[K], V], keys: Sequence[K]) -> Iterator[tuple[K, V]]:
        """(key, result) as each task finishes; a task's error is raised here, the rest cancelled."""
        client = self.start()
        shipped = client.scatter(function, broadcast=True, hash=False)
        futures = client.map(_call, [shipped] * len(keys), list(keys), pure=False)
        key_of = {future.key: key for future, key in zip(futures, keys, strict=True)}
        try:
            for future, result in self.distributed.as_completed(futures, with_results=True):
                yield key_of[future.key], result
                future.release()
        finally:
            client.cancel(futures)
            client.cancel([shipped])
