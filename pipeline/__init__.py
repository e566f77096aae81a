"""dataslate: the reference data pipeline for Warhammer 40,000 10th-edition datasheets."""

__version__ = "0.1.0"
