"""Process-level helpers shared by the stages that build many records at once."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import functools
import gc
import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Generic, NoReturn, TypeVar, cast

T = TypeVar("T")

#: Linux's `prctl` option: the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1

#: Threads started by `start_background`; `fork_pool` waits for them.
_background: list[threading.Thread] = []

#: The function the processes of `forked_tasks` run (set just before they fork: they inherit it).
_forked_task: Callable[[Any], Any] | None = None


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


#: `busy_elsewhere` reads the runnable tasks this many times, this many seconds apart, and keeps the fewest.
RUNNABLE_SAMPLES, RUNNABLE_PAUSE = 5, 0.01


def busy_elsewhere() -> float:
    """CPUs other tasks keep busy now: the fewest runnable tasks in a few reads of `procs_running` in /proc/stat,
    less this thread (a task starting or ending between reads does not count). The 1-minute load average beyond
    this process where there is no /proc: it lags, so a run started after another one looks like a busy box."""
    counts = []
    for sample in range(RUNNABLE_SAMPLES):
        running = _procs_running()
        if running is None:
            return max(0.0, os.getloadavg()[0] - 1) if hasattr(os, "getloadavg") else 0.0
        counts.append(running)
        if sample + 1 < RUNNABLE_SAMPLES:
            time.sleep(RUNNABLE_PAUSE)
    return float(max(0, min(counts) - 1))


def _procs_running() -> int | None:
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a stage builds ~100k acyclic records.

    Each full collection walks every live container, and a bulk build triggers many
    of them: pausing roughly halves the Wahapedia parse and cuts reconciliation from
    1.3-2.0 s to 1.1 s (measured). Reference counting still frees everything; the
    previous state is restored when the block ends, fails or is abandoned.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


#: The cyclic GC's thresholds while a run holds its records (Python's: 700, 10, 10). A young collection every
#: 100,000 container allocations, and full ones (which walk every live record) only after 100 of the middle
#: generation's: they took ≈ 2.4 s of a run's CPU, mostly on its one-core stretches (docs/scaling.md#the-cyclic-gc).
RUN_GC_THRESHOLDS = (100_000, 20, 100)


@contextmanager
def gc_thresholds(thresholds: tuple[int, int, int] = RUN_GC_THRESHOLDS) -> Iterator[None]:
    """The cyclic GC runs at these thresholds meanwhile; the previous ones come back when the block ends."""
    before = gc.get_threshold()
    gc.set_threshold(*thresholds)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def numpy_small_pages() -> Iterator[None]:
    """NumPy's arrays on ordinary 4 KiB pages meanwhile: NumPy asks for transparent huge pages (`madvise`) for
    arrays of 4 MiB or more, and a changed run fills its damage blocks sparsely, each first write to a huge page
    zeroing 2 MiB (docs/scaling.md#incremental-work). The user's choice (`NUMPY_MADVISE_HUGEPAGE`) is kept, and
    a NumPy without the switch is left as it is."""
    try:  # NumPy 2's module; NumPy 1 named it `numpy.core.multiarray`
        multiarray = importlib.import_module("numpy._core.multiarray")
    except ImportError:
        multiarray = None
    switch: Callable[[bool], bool] | None = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is None or "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)


def arrow_system_allocator() -> None:
    """Arrow allocates from the C library's malloc in this process from now on, unless the user chose a pool
    (`ARROW_DEFAULT_MEMORY_POOL`). Under Arrow's default (mimalloc), Arrow's takes right after the engine had freed
    its large arrays cost 3-8x the CPU (docs/units.md#summaries-read-the-views-tables-issue-13)."""
    if "ARROW_DEFAULT_MEMORY_POOL" in os.environ:
        return
    import pyarrow as pa

    if pa.default_memory_pool().backend_name != "system":
        pa.set_memory_pool(pa.system_memory_pool())


#: The niceness background work adds to its thread (`lower_thread_priority`).
BACKGROUND_NICENESS = 10


def lower_thread_priority(by: int = BACKGROUND_NICENESS) -> None:
    """Lower the calling thread's scheduling priority (Linux: niceness is per thread), for work the run does not
    wait for yet: the run's own threads and processes get the cores first. Threads it starts afterwards inherit
    it; an unprivileged thread cannot raise it back. Where it cannot be lowered, nothing changes."""
    with contextlib.suppress(OSError, AttributeError):
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + by)


def start_background(work: Callable[[], None], name: str) -> threading.Thread:
    """Run `work` (an import, say) on a daemon thread that every `fork_pool` waits for first: a process forked
    while another thread holds a lock (the import lock, a logging lock) can hang on it forever."""
    thread = threading.Thread(target=work, name=name, daemon=True)
    _background[:] = [*(t for t in _background if t.is_alive()), thread]
    thread.start()
    return thread


class Beside(Generic[T]):
    """`work()` on a `start_background` thread; `result()` waits for it and hands its value over (once: nothing
    here keeps it, so what the caller drops is freed) or raises its error. For work that releases the GIL
    (Polars, NumPy) beside other work in the calling thread."""

    def __init__(self, work: Callable[[], T], name: str) -> None:
        self._work: Callable[[], T] | None = work
        self._outcome: list[T] = []
        self._error: BaseException | None = None
        self._thread = start_background(self._run, name)

    def _run(self) -> None:
        assert self._work is not None
        try:
            self._outcome.append(self._work())
        except BaseException as error:  # re-raised in the caller's thread by result()
            self._error = error
        finally:
            self._work = None  # nor what the work closed over

    def wait(self) -> None:
        """Wait for the work to end, whatever its outcome (kept for `result`)."""
        self._thread.join()

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        if not self._outcome:
            raise RuntimeError(f"the result of {self._thread.name} was already taken")
        return self._outcome.pop()


def exit_now(code: int) -> NoReturn:
    """End the process as `sys.exit(code)` would, minus the interpreter's teardown: the atexit handlers run and
    the standard streams are flushed, then `os._exit`. The teardown's full collections walk every live object
    (≈ 1.1–1.3 s after a run; docs/scaling.md#process-exit) only to free memory the system takes back anyway.
    For the console script's last step, and a helper process's (`helper_process.serve`)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def fork_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` forked processes, once no `start_background` thread is running."""
    for thread in _background:
        thread.join()
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))


def forked_process(target: Callable[..., None], *args: Any) -> BaseProcess:
    """`target(*args)` on a forked process, started once no `start_background` thread is running; the process is
    killed when this one dies (Linux: `PR_SET_PDEATHSIG`), so that nothing it inherited (an output folder's lock)
    outlives a killed run."""
    for thread in _background:
        thread.join()
    prctl = getattr(_libc(), "prctl", None)  # looked up here: the child runs no `ldconfig`
    process = multiprocessing.get_context("fork").Process(
        target=_orphan_proof, args=(os.getpid(), prctl, target, *args)
    )
    process.daemon = True
    process.start()
    return process


def _orphan_proof(parent: int, prctl: Callable[..., int] | None, target: Callable[..., None], *args: Any) -> None:
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        return
    target(*args)


def _run_forked_task(key: Any) -> Any:
    assert _forked_task is not None
    return _forked_task(key)


@contextmanager
def forked_tasks(function: Callable[[Any], Any], workers: int) -> Iterator[Callable[[Any], Future[Any]]]:
    """`submit(key)` running `function(key)` on `workers` forked processes, which inherit `function` (it need
    not be picklable; keys and results are pickled). The parent's objects are frozen out of the cyclic GC
    meanwhile, so the children's collections leave them (and their shared pages) alone."""
    global _forked_task
    _forked_task = function
    gc.freeze()
    pool = fork_pool(workers)
    try:
        yield lambda key: pool.submit(_run_forked_task, key)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()
        _forked_task = None


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library, loaded once (`find_library` runs `ldconfig`); None where there is none."""
    name = ctypes.util.find_library("c")
    return None if name is None else ctypes.CDLL(name, use_errno=True)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, looked up once; None where there is none."""
    return cast("Callable[[int], int] | None", getattr(_libc(), "malloc_trim", None))


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """Linux's `syncfs`, looked up once; None where the C library has none."""
    return cast("Callable[[int], int] | None", getattr(_libc(), "syncfs", None))


def sync_file_system(path: Path) -> bool:
    """Flush the whole file system holding `path` to disk (`syncfs`: every file and folder written to it, in one
    call); False where there is no `syncfs` or it failed (the caller flushes file by file)."""
    syncfs = _syncfs()
    if syncfs is None:
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        return syncfs(fd) == 0
    finally:
        os.close(fd)


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc `malloc_trim`): the records and frames a stage
    dropped otherwise stay in the process's RSS (≈ 100–200 MB a matchup partition). False where there is no
    glibc."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
