"""A scriptable HTTP server on 127.0.0.1 for the fetch tests: each path answers what the test says.

    with Loopback() as site:
        site.serve("/a.csv", Reply(429, headers={"Retry-After": "1"}), Reply(200, b"..."))
        site.url("/a.csv")

Replies are given in order, the last one repeating; `static(body)` answers 200 with an
ETag and 304 to a matching If-None-Match. A reply can drip its body one byte at a time.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

LAST_MODIFIED = "Wed, 09 Jul 2025 00:00:00 GMT"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    drip: float = 0.0  # seconds between single bytes of the body
    length: int | None = None  # Content-Length to announce (default: the body's length)


@dataclass(frozen=True)
class Seen:
    """A request as the server received it."""

    path: str
    headers: dict[str, str]
    at: float


Answer = Callable[[Seen], Reply]


def etag_of(body: bytes) -> str:
    return f'"{hashlib.sha256(body).hexdigest()[:20]}"'


def static(body: bytes, headers: dict[str, str] | None = None) -> Answer:
    """200 with ETag/Last-Modified, 304 when the client already has this body."""
    etag = etag_of(body)

    def answer(seen: Seen) -> Reply:
        if seen.headers.get("if-none-match") == etag:
            return Reply(304, headers={"ETag": etag})
        return Reply(200, body, {"ETag": etag, "Last-Modified": LAST_MODIFIED, **(headers or {})})

    return answer


def gzipped(data: bytes, layers: int = 1) -> bytes:
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    return data


class Loopback:
    """The server; a context manager that starts and stops it."""

    def __init__(self) -> None:
        self._routes: dict[str, Answer] = {}
        self.seen: list[Seen] = []
        self._httpd = QuietServer(("127.0.0.1", 0), _handler(self))

    def serve(self, path: str, *replies: Reply) -> None:
        """Answer `path` with these replies in turn, the last one for every later request."""
        queue = list(replies)

        def answer(_: Seen) -> Reply:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        self._routes[path] = answer

    def answer(self, path: str, answer: Answer) -> None:
        self._routes[path] = answer

    def reply_to(self, seen: Seen) -> Reply:
        self.seen.append(seen)
        answer = self._routes.get(seen.path)
        return answer(seen) if answer else Reply(404, b"not found")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def hits(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]

    def __enter__(self) -> Loopback:
        thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a client that gives up mid-request (the point of several tests) is not an error here."""


def _handler(site: Loopback) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, time.monotonic())
            try:
                self._send(site.reply_to(seen))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.status != 304:
                self.send_header("Content-Length", str(len(reply.body) if reply.length is None else reply.length))
            self.end_headers()
            if not reply.drip:
                self.wfile.write(reply.body)
            for index in range(len(reply.body) if reply.drip else 0):
                self.wfile.write(reply.body[index : index + 1])
                self.wfile.flush()
                time.sleep(reply.drip)
            if reply.length is not None and reply.length != len(reply.body):
                self.close_connection = True

    return Handler
