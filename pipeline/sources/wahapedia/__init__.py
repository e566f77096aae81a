"""The Wahapedia CSV export: a folder of 18 `|` tables (docs/sources.md#wahapedia-export)."""

from pipeline.sources.wahapedia.parser import parse

__all__ = ["parse"]
