"""Make GX Data Docs byte-identical from run to run.

The release's files are hashed in its manifest and two runs on the same inputs
must give the same hashes. GX's HTML embeds the load time of each batch, a
cache-busting time stamp on the logo URL and random uuids as element ids. The run
time is fixed by the runner; this pass replaces the rest with stable values (and
blanks the batch fingerprint, which is not reproducible for list columns). GX
also copies its whole `static/` folder (about 4 MB of gifs and fonts) of which the
pages link two images: the rest is dropped so every release does not carry it.
"""

from __future__ import annotations

import re
from pathlib import Path

_CACHE_BUSTER = re.compile(r"\?d=\d{8}T\d{6}\.\d{6}Z")
_STAMP = re.compile(r"\d{8}T\d{6}\.\d{6}Z")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: GX fingerprints a pandas batch with md5(pickle(df)); with list columns the pickle
#: bytes depend on the process's state, so the value is not reproducible.
_FINGERPRINT = re.compile(r"(pandas_data_fingerprint</span>.*?>)([0-9a-f]{32})(</span>)", re.DOTALL)


def stabilise_docs(docs_dir: Path, stamp: str) -> int:
    """Rewrite every HTML file of a Data Docs site in place; returns how many changed.

    Files are visited in sorted order and uuids are numbered in order of first
    appearance, so the same site always gets the same ids (and links between pages
    that share an id still agree).
    """
    numbering: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return numbering.setdefault(match.group(0), f"id-{len(numbering) + 1:06d}")

    changed = 0
    for path in sorted(docs_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        stable = _UUID.sub(renumber, _STAMP.sub(stamp, _CACHE_BUSTER.sub("", text)))
        stable = _FINGERPRINT.sub(r"\1not-reproducible\3", stable)
        if stable != text:
            path.write_text(stable, encoding="utf-8")
            changed += 1
    return changed


def prune_unreferenced_static(docs_dir: Path) -> list[str]:
    """Delete files under `static/` that no HTML or CSS file names; returns their paths."""
    static = docs_dir / "static"
    if not static.is_dir():
        return []
    pages = [p.read_text(encoding="utf-8") for p in sorted(docs_dir.rglob("*")) if p.suffix in {".html", ".css"}]
    removed = []
    for path in sorted(p for p in static.rglob("*") if p.is_file()):
        if not any(path.name in page for page in pages):
            path.unlink()
            removed.append(str(path.relative_to(docs_dir)))
    for folder in sorted((p for p in static.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    return removed
