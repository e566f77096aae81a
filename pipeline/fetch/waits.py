"""Time limits of a download: the per-file deadline and the server's Retry-After."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


class DeadlinePassed(Exception):
    """The per-file deadline passed (a slow drip cannot keep a download alive)."""


class Deadline:
    """Wall-clock budget of one file, retries and waits included."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends = time.monotonic() + seconds

    def remaining(self) -> float:
        return self._ends - time.monotonic()

    def check(self, during: str) -> None:
        if self.remaining() <= 0:
            raise DeadlinePassed(f"deadline of {self.seconds:g} s passed {during}")

    def timeout(self, per_read: float) -> float:
        """The per-read timeout of the next request: never beyond the deadline."""
        self.check("before the request")
        return min(per_read, self.remaining())


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date); None if absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
