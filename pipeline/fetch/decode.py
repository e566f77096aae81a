"""Content-Encoding, decoded by us while streaming, a bounded piece at a time.

httpx would inflate a whole network read in one call (and stack encodings such as
`gzip, gzip`), so a few kilobytes can become gigabytes before any size check runs.
Here every inflate step yields at most `CHUNK` bytes, so the caller's byte cap
trips within one chunk of its limit. Only identity and a single gzip are accepted.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Protocol

CHUNK = 1 << 16
ACCEPT_ENCODING = "gzip"
GZIP_WBITS = 16 + zlib.MAX_WBITS
GZIP_NAMES = frozenset({"gzip", "x-gzip"})


class DecodeError(Exception):
    """A body we will not or cannot decode (unknown/stacked encoding, broken gzip)."""


class Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def finish(self) -> None: ...


class Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        if data:
            yield data

    def finish(self) -> None:
        return None


class GzipInflater:
    """gzip (several members allowed), inflated at most `chunk` bytes per step."""

    def __init__(self, chunk: int = CHUNK) -> None:
        self._chunk = chunk
        self._inflate = zlib.decompressobj(GZIP_WBITS)
        self._open = False  # inside a member that has not ended yet

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            self._open = self._open or bool(data)
            try:
                out = self._inflate.decompress(data, self._chunk)
            except zlib.error as error:
                raise DecodeError(f"invalid gzip data: {error}") from error
            if out:
                yield out
            if self._inflate.eof:
                data, self._open = self._inflate.unused_data, False
                self._inflate = zlib.decompressobj(GZIP_WBITS)
                if not data:
                    return
                continue
            data = self._inflate.unconsumed_tail
            if not data and len(out) < self._chunk:
                return

    def finish(self) -> None:
        if self._open:
            raise DecodeError("invalid gzip data: the stream ends inside a member")


def decoder_for(content_encoding: str | None) -> Decoder:
    """The decoder for a Content-Encoding header; refuses stacked and unknown encodings."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return Identity()
    if len(codings) > 1:
        raise DecodeError(f"stacked Content-Encoding refused: {content_encoding!r}")
    if codings[0] in GZIP_NAMES:
        return GzipInflater()
    raise DecodeError(f"unsupported Content-Encoding: {content_encoding!r}")


def inflate_all(chunks: Iterable[bytes], decoder: Decoder) -> Iterator[bytes]:
    """Decoded pieces of an encoded byte stream (each at most CHUNK bytes for gzip)."""
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.finish()
