"""Datasheets one source republishes under another faction: the copy has no weapons of its own.

Wahapedia lists Astra Militarum tanks again under Genestealer Cults, Chaos Space Marines
characters under Chaos Daemons, and so on: same name, same publication, and the wargear
rows only on the home datasheet. Rules: docs/reconcile.md#copies.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pipeline.reconcile.keys import fold

if TYPE_CHECKING:
    from pipeline.reconcile.members import Member


def _home(copy: Member, candidates: Sequence[Member]) -> Member | None:
    """The one datasheet of another faction with weapons; failing that (neither has any), the one
    whose faction the publication names (`Codex: Astra Militarum`)."""
    others = [m for m in candidates if m.faction_keys[0] != copy.faction_keys[0]]
    armed = [m for m in others if m.weapons and m.copy_of is None]
    if len(armed) == 1:
        return armed[0]
    if armed:
        return None
    book = f" {fold(copy.sheet.source_book or '')} "
    named = [m for m in others if f" {fold(m.sheet.faction)} " in book]
    return named[0] if len(named) == 1 else None


def find_copies(members: Sequence[Member]) -> dict[str, Member]:
    """datasheet_id of each copy -> its home datasheet (same source format, name, Legends status and
    publication, another faction, the copy without weapons)."""
    same: dict[tuple[str, str, str | None, str], list[Member]] = defaultdict(list)
    for member in members:
        if member.sheet.source_book:
            same[(member.fmt, member.name_key, member.legend, fold(member.sheet.source_book))].append(member)
    homes: dict[str, Member] = {}
    for group in same.values():
        if len(group) < 2:
            continue
        for member in group:
            if not member.weapons:
                home = _home(member, group)
                if home is not None and home is not member:
                    homes[member.datasheet_id] = home
    return homes
