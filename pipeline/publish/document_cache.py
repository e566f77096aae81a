"""Faction documents cached by the rows each is built from (docs/releases.md#faction-documents).

A faction's document is a function of the code, its file name, its units' rows, the rows of every table sliced
to them and the whole tables every document reads (`factions.document_key` digests them): a document whose key
a cached one has is placed from the cache (hard link, checked like every cached part) instead of built again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline.cache.parts import PartCache

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

    def place(self, key: str | None, path: Path) -> bool:
        """`path` placed from the cache under `key` (None: not cached), or False."""
        if key is None or self.parts.place(key, path) is None:
            return False
        self.placed.add(path.name)
        return True

    def keep(self, key: str | None, path: Path) -> None:
        """The document just written at `path`, kept under `key` (None: not cached)."""
        if key is not None:
            self.parts.keep(key, path)
        self.written.add(path.name)

    @property
    def documents(self) -> tuple[int, int]:
        """Documents this run wrote, and placed from the cache."""
        return len(self.written), len(self.placed)

    def prune(self) -> int:
        """Drop the cached documents this run did not use (after it published)."""
        return self.parts.prune()
