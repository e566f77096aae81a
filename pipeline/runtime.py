"""Process-level helpers shared by the stages that build many records at once."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
