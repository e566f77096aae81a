"""Datasheets a source republishes under another faction with none or only some of their weapons
(Wahapedia copies): the same name and publication as a datasheet that has them all, their home
(docs/sources.md#default-loadouts)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from pipeline.loadouts.names import key
from schemas.records import Datasheet


def find_homes(datasheets: Sequence[Datasheet], weapon_names: Mapping[str, set[str]]) -> dict[str, str]:
    """datasheet_id of each copy -> its home: of the other datasheets of the same source, name and
    publication, the one with the most weapons, if it has every weapon the copy has and more (a tie for
    the most: no home)."""
    same: dict[tuple[str | None, str, str], list[str]] = defaultdict(list)
    for sheet in datasheets:
        if sheet.source_book:
            same[(sheet.source_id, key(sheet.name), key(sheet.source_book))].append(sheet.datasheet_id)
    homes: dict[str, str] = {}
    for group in same.values():
        if len(group) < 2:
            continue
        sizes = {i: len(weapon_names.get(i, set())) for i in group}
        most = max(sizes.values())
        fullest = [i for i in group if sizes[i] == most]
        home = fullest[0]
        if len(fullest) > 1 and len({frozenset(weapon_names.get(i, set())) for i in fullest}) > 1:
            continue
        for copy in group:
            own = weapon_names.get(copy, set())
            if copy not in fullest and own < weapon_names.get(home, set()):
                homes[copy] = home
    return homes
