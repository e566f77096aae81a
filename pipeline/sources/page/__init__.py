"""Page exports (`raw/pages/*.txt`): datasheet web pages saved as text (docs/sources.md#page-exports)."""

from pipeline.sources.page.parser import parse

__all__ = ["parse"]
