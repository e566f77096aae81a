"""BattleScribe (BSData) `.cat` / `.gst` catalogues (docs/sources.md#bsdata-catalogues)."""

from pipeline.sources.bsdata.parser import parse

__all__ = ["parse"]
