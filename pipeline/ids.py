"""Stable ids derived from content and source: same inputs, same ids, run after run."""

from __future__ import annotations

import hashlib
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


def file_sha256(path: str) -> str:
    """sha256 of a file's bytes, streamed in 4 MiB reads (each read and each update gives up the GIL: fewer,
    longer ones let a thread hash beside Python work with fewer hand-overs)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(4 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
