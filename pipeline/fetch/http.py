"""One polite, bounded, resumable-by-validator download over HTTP.

Retries only what a retry can fix: 5xx answers, 408/429, timeouts, dropped
connections and bodies shorter than their Content-Length, with exponential
backoff (`backoff * 2**attempt`). A 4xx or an oversized file fails at once.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import httpx

from pipeline.fetch.files import atomic_writer

Status = Literal["fetched", "not_modified", "failed"]
RETRY_STATUS = frozenset({408, 429})
CHUNK = 1 << 16


class RetryableError(Exception):
    """A failure another attempt may not repeat (5xx, truncated body, ...)."""


class FatalError(Exception):
    """A failure no retry fixes (404, too large, ...)."""


@dataclass(frozen=True)
class Outcome:
    """What happened to one file."""

    status: Status
    attempts: int
    sha256: str | None = None
    size: int | None = None
    etag: str | None = None
    last_modified: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Limits:
    timeout: float
    retries: int
    backoff: float
    max_bytes: int


def conditional_headers(validators: dict[str, str], have_local_copy: bool) -> dict[str, str]:
    """If-None-Match / If-Modified-Since, only when there is a local copy to fall back on."""
    if not have_local_copy:
        return {}
    headers = {}
    if validators.get("etag"):
        headers["If-None-Match"] = validators["etag"]
    if validators.get("last_modified"):
        headers["If-Modified-Since"] = validators["last_modified"]
    return headers


def _check_status(response: httpx.Response, conditional: bool) -> None:
    code = response.status_code
    if code >= 500 or code in RETRY_STATUS:
        raise RetryableError(f"HTTP {code}")
    if code == 304 and not conditional:
        raise FatalError("HTTP 304 without a conditional request")
    if code != 304 and not 200 <= code < 300:
        raise FatalError(f"HTTP {code}")


def _declared_length(response: httpx.Response, max_bytes: int) -> int | None:
    raw = response.headers.get("Content-Length")
    length = int(raw) if raw is not None and raw.isdigit() else None
    if length is not None and length > max_bytes:
        raise FatalError(f"too large: {length} bytes > limit {max_bytes}")
    return length


def _stream_to(response: httpx.Response, target: Path, limits: Limits) -> tuple[str, int]:
    """Body -> target (atomically); sha256 and size. Raises before replacing on any problem.

    The size limit applies to the decoded bytes (a compressed bomb cannot pass it);
    Content-Length is compared with the bytes received on the wire.
    """
    expected = _declared_length(response, limits.max_bytes)
    digest, size = hashlib.sha256(), 0
    with atomic_writer(target) as handle:
        for chunk in response.iter_bytes(CHUNK):
            size += len(chunk)
            if size > limits.max_bytes:
                raise FatalError(f"too large: more than {limits.max_bytes} bytes")
            digest.update(chunk)
            handle.write(chunk)
        received = response.num_bytes_downloaded
        if expected is not None and received != expected:
            raise RetryableError(f"truncated body: {received} of {expected} bytes")
    return digest.hexdigest(), size


def _attempt(client: httpx.Client, url: str, target: Path, headers: dict[str, str], limits: Limits) -> Outcome:
    """One GET; an Outcome with attempts=0 (the caller counts)."""
    with client.stream("GET", url, headers=headers, timeout=limits.timeout) as response:
        _check_status(response, bool(headers))
        etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
        if response.status_code == 304:
            return Outcome("not_modified", 0, etag=etag, last_modified=modified)
        sha, size = _stream_to(response, target, limits)
        return Outcome("fetched", 0, sha256=sha, size=size, etag=etag, last_modified=modified)


def _describe(problem: Exception) -> str:
    if isinstance(problem, httpx.TransportError):
        return f"{type(problem).__name__}: {problem}".rstrip(": ")
    return str(problem)


def download(client: httpx.Client, url: str, target: Path, validators: dict[str, str], limits: Limits) -> Outcome:
    """Fetch `url` into `target` with bounded retries; never raises for HTTP or network trouble."""
    headers = conditional_headers(validators, target.is_file())
    error = "no attempt made"
    for attempt in range(1, limits.retries + 2):
        try:
            outcome = _attempt(client, url, target, headers, limits)
            return replace(outcome, attempts=attempt)
        except FatalError as fatal:
            return Outcome("failed", attempt, error=str(fatal))
        except (RetryableError, httpx.TransportError) as problem:
            error = _describe(problem)
        if attempt <= limits.retries:
            time.sleep(limits.backoff * 2 ** (attempt - 1))
    return Outcome("failed", limits.retries + 1, error=error)
