"""One polite, bounded download over HTTP (see docs/fetch.md for the rules).

Retries only what a retry can fix: 5xx answers, 408/429, timeouts, dropped
connections and bodies shorter than their Content-Length, waiting
`backoff * 2**attempt` or the server's Retry-After, whichever is longer (a
Retry-After beyond `max_retry_after` gives the file up). Everything else fails
the file at once, with a one-line reason: 4xx, redirects to another origin or
too many of them, unknown or stacked encodings, broken gzip, bodies over the
size limit, content the caller's check refuses, the per-file deadline passing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol

import httpx

from pipeline.errors import FetchError
from pipeline.fetch.decode import ACCEPT_ENCODING, DecodeError, decoder_for, inflate_all
from pipeline.fetch.files import atomic_writer
from pipeline.fetch.waits import Deadline, DeadlinePassed, parse_retry_after

Status = Literal["fetched", "not_modified", "failed"]
RETRY_STATUS = frozenset({408, 429})
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
DEFAULT_PORTS = {"http": 80, "https": 443}


class RetryableError(Exception):
    """A failure another attempt may not repeat (5xx, truncated body, ...)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FatalError(Exception):
    """A failure no retry fixes (404, too large, refused content, ...)."""


class ContentRefused(Exception):
    """A body a `BodyCheck` will not let replace the local copy (the message says why)."""


class BodyCheck(Protocol):
    """Looks at a body as it streams; `feed` or `finish` raise ContentRefused to refuse it."""

    def feed(self, chunk: bytes) -> None: ...

    def finish(self) -> None: ...


#: A fresh check per attempt (None: any body is accepted).
CheckFactory = Callable[[], BodyCheck]


@dataclass(frozen=True)
class Outcome:
    """What happened to one download."""

    status: Status
    attempts: int
    sha256: str | None = None
    size: int | None = None
    etag: str | None = None
    last_modified: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Limits:
    """timeout: per connect/read; deadline: the whole file, retries and waits included."""

    timeout: float
    retries: int
    backoff: float
    max_bytes: int
    deadline: float
    max_retry_after: float
    max_redirects: int = 5
    redirect_origins: tuple[str, ...] = ()  # origins besides the start's that a redirect may reach


def check_base_url(base_url: str) -> str:
    """An absolute http(s) URL with a host, or FetchError before any request is made."""
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as error:
        raise FetchError(f"not a usable base URL: {base_url!r} ({error})") from error
    if url.scheme not in DEFAULT_PORTS or not url.host:
        raise FetchError(f"not a usable base URL (http or https, with a host): {base_url!r}")
    return base_url


def conditional_headers(validators: dict[str, str]) -> dict[str, str]:
    """If-None-Match / If-Modified-Since from stored validators (pass none without a local copy)."""
    headers = {}
    if validators.get("etag"):
        headers["If-None-Match"] = validators["etag"]
    if validators.get("last_modified"):
        headers["If-Modified-Since"] = validators["last_modified"]
    return headers


def _check_status(response: httpx.Response, conditional: bool) -> None:
    code = response.status_code
    if code >= 500 or code in RETRY_STATUS:
        raise RetryableError(f"HTTP {code}", parse_retry_after(response.headers.get("Retry-After")))
    if code == 304 and not conditional:
        raise FatalError("HTTP 304 without a conditional request")
    if code != 304 and not 200 <= code < 300:
        raise FatalError(f"HTTP {code}")


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or DEFAULT_PORTS.get(url.scheme)


def _redirect_target(response: httpx.Response, start: httpx.URL, limits: Limits) -> httpx.URL:
    """Where a redirect points, if it stays on the start's origin (or one the caller trusts)."""
    location = response.headers.get("Location")
    if not location:
        raise FatalError(f"HTTP {response.status_code} redirect without a Location")
    target = response.url.join(location)
    allowed = {_origin(start)} | {_origin(httpx.URL(origin)) for origin in limits.redirect_origins}
    if _origin(target) not in allowed:
        raise FatalError(f"redirect to another origin refused: {target}")
    return target


def _declared_length(response: httpx.Response, max_bytes: int) -> int | None:
    raw = response.headers.get("Content-Length")
    length = int(raw) if raw is not None and raw.isdigit() else None
    if length is not None and length > max_bytes:
        raise FatalError(f"too large: {length} bytes > limit {max_bytes}")
    return length


def _raw_chunks(response: httpx.Response, limits: Limits, deadline: Deadline) -> Iterator[bytes]:
    """Bytes as they come off the wire (each network read), with the wire size and the deadline checked."""
    received = 0
    for chunk in response.iter_raw():
        received += len(chunk)
        if received > limits.max_bytes:
            raise FatalError(f"too large: more than {limits.max_bytes} bytes on the wire")
        deadline.check("while receiving the body")
        yield chunk


def _stream_to(
    response: httpx.Response, target: Path, limits: Limits, deadline: Deadline, check: BodyCheck | None
) -> tuple[str, int]:
    """Body -> target (atomically); sha256 and size. Raises before replacing on any problem.

    The size limit applies to the decoded bytes as they are inflated (a bomb stops within
    one chunk of the limit); Content-Length is compared with the bytes received on the wire.
    """
    expected = _declared_length(response, limits.max_bytes)
    decoder = decoder_for(response.headers.get("Content-Encoding"))
    digest, size = hashlib.sha256(), 0
    with atomic_writer(target) as handle:
        for piece in inflate_all(_raw_chunks(response, limits, deadline), decoder):
            size += len(piece)
            if size > limits.max_bytes:
                raise FatalError(f"too large: more than {limits.max_bytes} bytes decoded")
            if check is not None:
                check.feed(piece)  # may refuse early: no need to download the rest
            digest.update(piece)
            handle.write(piece)
        received = response.num_bytes_downloaded
        if expected is not None and received != expected:
            raise RetryableError(f"truncated body: {received} of {expected} bytes")
        if check is not None:
            check.finish()
    return digest.hexdigest(), size


@dataclass(frozen=True)
class _Request:
    url: httpx.URL
    target: Path
    headers: dict[str, str]
    limits: Limits
    deadline: Deadline
    check: CheckFactory | None


def _attempt(client: httpx.Client, request: _Request) -> Outcome:
    """One GET (following same-origin redirects); an Outcome with attempts=0 (the caller counts)."""
    url, limits = request.url, request.limits
    for _ in range(limits.max_redirects + 1):
        timeout = request.deadline.timeout(limits.timeout)
        with client.stream("GET", url, headers=request.headers, timeout=timeout, follow_redirects=False) as response:
            if response.status_code in REDIRECT_STATUS:
                url = _redirect_target(response, request.url, limits)
                continue
            return _receive(response, request)
    raise FatalError(f"too many redirects (more than {limits.max_redirects})")


def _receive(response: httpx.Response, request: _Request) -> Outcome:
    conditional = "If-None-Match" in request.headers or "If-Modified-Since" in request.headers
    _check_status(response, conditional)
    etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
    if response.status_code == 304:
        return Outcome("not_modified", 0, etag=etag, last_modified=modified)
    check = request.check() if request.check is not None else None
    sha, size = _stream_to(response, request.target, request.limits, request.deadline, check)
    return Outcome("fetched", 0, sha256=sha, size=size, etag=etag, last_modified=modified)


def _describe(problem: Exception) -> str:
    if isinstance(problem, httpx.TransportError):
        return f"{type(problem).__name__}: {problem}".rstrip(": ")
    return str(problem)


def _wait_or_give_up(problem: Exception, attempt: int, limits: Limits, deadline: Deadline) -> str | None:
    """Sleep before the next attempt; or the reason to stop (Retry-After over the cap, deadline)."""
    error = _describe(problem)
    retry_after = problem.retry_after if isinstance(problem, RetryableError) else None
    if retry_after is not None and retry_after > limits.max_retry_after:
        return f"{error}: Retry-After {retry_after:.0f} s is beyond the {limits.max_retry_after:.0f} s cap"
    wait = max(limits.backoff * 2 ** (attempt - 1), retry_after or 0.0)
    if wait >= deadline.remaining():
        return f"{error}: the next attempt (in {wait:.1f} s) would pass the {deadline.seconds:.0f} s deadline"
    time.sleep(wait)
    return None


def download(
    client: httpx.Client,
    url: str,
    target: Path,
    validators: dict[str, str],
    limits: Limits,
    check: CheckFactory | None = None,
) -> Outcome:
    """Fetch `url` into `target` with bounded retries; never raises for HTTP, network or content trouble.

    `validators` (ETag / Last-Modified) make the request conditional: pass them only when
    the caller has a local copy to fall back on after a 304.
    """
    deadline = Deadline(limits.deadline)
    headers = {"Accept-Encoding": ACCEPT_ENCODING, **conditional_headers(validators)}
    request = _Request(httpx.URL(url), target, headers, limits, deadline, check)
    for attempt in range(1, limits.retries + 2):
        try:
            return replace(_attempt(client, request), attempts=attempt)
        except (RetryableError, httpx.TransportError) as problem:
            if attempt > limits.retries:
                return Outcome("failed", attempt, error=_describe(problem))
            reason = _wait_or_give_up(problem, attempt, limits, deadline)
            if reason is not None:
                return Outcome("failed", attempt, error=reason)
        except (FatalError, DecodeError, DeadlinePassed) as fatal:
            return Outcome("failed", attempt, error=str(fatal))
        except ContentRefused as refused:
            return Outcome("failed", attempt, error=f"refused content: {refused}")
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, OSError) as other:
            return Outcome("failed", attempt, error=f"{type(other).__name__}: {other}".rstrip(": "))
    raise AssertionError("unreachable: the loop returns on its last attempt")
