"""Default loadouts: which models of each points option carry which weapons (issue 13, item 1).

Text sources (Wahapedia, page exports) are read here from loadout statements, composition lines and
points options (`text.py`); BSData's default selections are read by its parser's walk
(`pipeline/sources/bsdata/loadout.py`); both build rows with `rows.py`. Rules: docs/sources.md#default-loadouts.
"""
