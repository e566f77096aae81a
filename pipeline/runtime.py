"""Process-level helpers shared by the stages that build many records at once."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


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
