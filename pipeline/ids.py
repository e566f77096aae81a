"""Stable ids derived from content and source: same inputs, same ids, run after run."""

from __future__ import annotations

import hashlib
import mmap
import os
import re
import unicodedata


def slug(text: str) -> str:
    """Lower-case ASCII slug: `Juggernaut’s bladed horn` -> `juggernauts-bladed-horn`."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = ascii_text.replace("'", "")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "x"


def content_hash(*parts: object, length: int = 16) -> str:
    """Short sha256 hex of the parts joined by a separator no text contains."""
    joined = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:length]


#: Bytes of a file mapped and hashed in one call (`stored_file_sha256`).
HASH_WINDOW = 32 << 20


def stored_file_sha256(path: str) -> str:
    """`file_sha256` of a file this pipeline wrote (a release's or the cache's, never truncated in place). One
    larger than 32 MiB is mapped 32 MiB at a time, each window hashed in one call that gives up the GIL once: beside
    a busy Python thread every hand-over waits up to the 5 ms switch interval, and a 350 MB feed file took 1.06 s in
    4 MiB reads (two hand-overs each), 0.29 s mapped (docs/scaling.md#incremental-work). Not for inputs: a file
    another program truncates while it is mapped kills the process (SIGBUS)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= HASH_WINDOW:  # one read: mapping (and unmapping, with its TLB flush) costs more for a small file
            return hashlib.sha256(handle.read()).hexdigest()
        digest = hashlib.sha256()
        for offset in range(0, size, HASH_WINDOW):
            length = min(HASH_WINDOW, size - offset)
            with mmap.mmap(handle.fileno(), length, access=mmap.ACCESS_READ, offset=offset) as window:
                digest.update(window)
        return digest.hexdigest()


def file_sha256(path: str) -> str:
    """sha256 of a file's bytes, streamed in 4 MiB reads (each read and each update gives up the GIL: fewer,
    longer ones let a thread hash beside Python work with fewer hand-overs)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(4 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
