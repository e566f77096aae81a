"""Time and memory limits of one `dataslate sql` query.

DuckDB has no server-side statement timeout, so a timer interrupts the connection.
Its memory_limit bounds operators (hash tables, sorts, lists) but not a single string
value being built (`repeat('x', 10^9)`), so while the query runs the process's data
segment is capped too (RLIMIT_DATA, Linux): an allocation past it fails, in DuckDB as
an OutOfMemoryException, in Python as MemoryError.
"""

from __future__ import annotations

import re
import resource
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from pipeline import config
from pipeline.errors import PipelineError

CONTEXT = "dataslate sql"

#: A memory limit as DuckDB reads it, but always a positive size with a unit (no "-1", no percentage).
MEMORY_LIMIT = re.compile(r"(?P<number>\d+(\.\d+)?)\s*(?P<unit>[KMGT]i?B)", re.IGNORECASE)
UNIT_BYTES = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "KI": 2**10, "MI": 2**20, "GI": 2**30, "TI": 2**40}

#: Data the process may add while a query runs, beyond what it holds: DuckDB's working memory,
#: the rows kept in Python (each up to the limit), and this much for everything else.
CEILING_SLACK_BYTES = 256 * 2**20


@dataclass(frozen=True)
class SqlLimits:
    timeout: float = config.SQL_TIMEOUT_SECONDS
    memory: str = config.SQL_MEMORY_LIMIT
    threads: int = config.SQL_THREADS

    def memory_bytes(self) -> int:
        match = MEMORY_LIMIT.fullmatch(self.memory.strip())
        if match is None or float(match["number"]) <= 0:
            raise PipelineError(f"memory limit {self.memory!r} is not a size such as 512MB or 2GB", context=CONTEXT)
        return int(float(match["number"]) * UNIT_BYTES[match["unit"].upper().removesuffix("B")])


class Deadline:
    """Interrupts the connection's running statement once `seconds` have passed."""

    def __init__(self, con: duckdb.DuckDBPyConnection, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.timer = threading.Timer(seconds, con.interrupt)
        self.timer.daemon = True

    def check(self) -> None:
        if time.monotonic() >= self.end:
            raise PipelineError(
                f"the query was stopped at the time limit ({self.seconds:g}s, --timeout)", context=CONTEXT
            )


@contextmanager
def deadline(con: duckdb.DuckDBPyConnection, seconds: float) -> Iterator[Deadline]:
    limit = Deadline(con, seconds)
    limit.timer.start()
    try:
        yield limit
    except duckdb.InterruptException as exc:
        limit.check()
        raise PipelineError("the query was interrupted", context=CONTEXT) from exc
    finally:
        limit.timer.cancel()


def _data_bytes() -> int | None:
    """The process's data segment now (VmData), or None where /proc does not tell."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmData:\s+(\d+) kB", status, re.MULTILINE)
    return int(match[1]) * 1024 if match else None


@contextmanager
def memory_ceiling(max_bytes: int) -> Iterator[None]:
    """Cap the data segment at its current size + 2 * max_bytes + slack; restore it after."""
    now = _data_bytes()
    if now is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = now + 2 * max_bytes + CEILING_SLACK_BYTES
    if soft != resource.RLIM_INFINITY:
        ceiling = min(ceiling, soft)  # never loosen a limit already set
    resource.setrlimit(resource.RLIMIT_DATA, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def row_bytes(row: tuple[Any, ...]) -> int:
    """Rough size of one fetched row in Python (shallow: a list counts its pointers)."""
    return sys.getsizeof(row) + sum(sys.getsizeof(value) for value in row)
