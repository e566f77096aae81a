"""Faction documents cached by the rows each is built from (docs/releases.md#faction-documents).

A faction's document is a function of the code, its file name, its units' rows, the rows of every table sliced
to them and the whole tables every document reads (`factions.document_key` digests them): a document whose key
a cached one has is placed from the cache (hard link, checked like every cached part) instead of built again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cache.parts import PartCache
from pipeline.runtime import Beside

if TYPE_CHECKING:
    import polars as pl

#: Cache kind (`<cache>/parts/<kind>/`).
DOCUMENTS_KIND = "faction_documents"


@dataclass
class DocumentCache:
    """Faction documents placed from, or kept in, the run's cache; with no folder every document is written."""

    parts: PartCache
    placed: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, cache: Path | None) -> DocumentCache:
        return cls(PartCache(cache, DOCUMENTS_KIND))

    @property
    def enabled(self) -> bool:
        return self.parts.folder is not None

    def file(self, key: Callable[[], str], path: Path, write: Callable[[Path], None]) -> None:
        """`path` placed from the cache under `key()`, else written by `write` and kept (without a cache
        folder: written, and no key is computed)."""
        found = key() if self.enabled else None
        if found is not None and self.parts.place(found, path) is not None:
            self.placed.add(path.name)
            return
        write(path)
        if found is not None:
            self.parts.keep(found, path)
        self.written.add(path.name)

    @property
    def documents(self) -> tuple[int, int]:
        """Documents this run wrote, and placed from the cache."""
        return len(self.written), len(self.placed)

    def prune(self) -> int:
        """Drop the cached documents this run did not use (after it published)."""
        return self.parts.prune()


def write_documents(frames: Mapping[str, pl.DataFrame], release: Path, cache: Path | None) -> DocumentCache:
    """Every faction document into `release` (placed from `cache` where it can be); what was placed and written."""
    from pipeline.publish.factions import write_faction_documents  # it reads this module

    documents = DocumentCache.of(cache)
    write_faction_documents(frames, release, documents)
    return documents


@contextmanager
def documents_beside(
    frames: Mapping[str, pl.DataFrame], release: Path, cache: Path | None
) -> Iterator[Beside[DocumentCache]]:
    """`write_documents` on a thread of its own (the documents read only the frames) while the caller goes on,
    its result handed to `write_release`; on the way out, however it goes, the thread is waited for, so no
    document is written into a staging release being removed (docs/scaling.md#the-helper-process)."""
    started = Beside(lambda: write_documents(frames, release, cache), "faction-documents")
    try:
        yield started
    finally:
        started.wait()
