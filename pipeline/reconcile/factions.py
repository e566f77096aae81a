"""The faction a datasheet is filed under, as a match key, and one display name per faction.

Rules and examples: docs/reconcile.md#factions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline import config
from pipeline.reconcile.keys import GENERIC_PARTS, catalogue_faction, display_text, faction_key, fold
from schemas.records import Datasheet

#: Key and display name of the pseudo faction of units a game system file defines (no army of their own).
NO_FACTION = "no faction"
NO_FACTION_NAME = "No faction"


def _file_name(source_id: str) -> tuple[str, str]:
    fmt, _, name = source_id.partition(":")
    return fmt, name


def is_game_system(source_id: str) -> bool:
    """A BSData game system file (`.gst`): what it defines belongs to no faction."""
    fmt, name = _file_name(source_id)
    return fmt == "bsdata" and name.lower().endswith(".gst")


def is_library(catalogue: str) -> bool:
    """A BSData library catalogue (`Library - Titans`, `Chaos - Chaos Daemons Library`): a store of
    entries other catalogues link, not an army list of its own."""
    return "library" in fold(catalogue).split()


def own_keys(sheet: Datasheet, aliases: dict[str, str]) -> tuple[str, ...]:
    """Faction keys of a datasheet before the sub-faction rule, the one it is filed under first.

    An army-list catalogue files its entries under itself (allies included); a library's
    entries keep their own `Faction:`; a game system's entries have no faction.
    """
    if is_game_system(sheet.source_id):
        return (NO_FACTION,)
    own = faction_key(sheet.faction, aliases)
    catalogue = catalogue_faction(sheet.source_id)
    if catalogue is None:
        return (own,)
    listed = faction_key(catalogue, aliases)
    keys = (own, listed) if is_library(catalogue) else (listed, own)
    return tuple(dict.fromkeys(keys))


@dataclass(frozen=True)
class Filed:
    """One datasheet as the sub-faction rule sees it."""

    fmt: str
    key: str
    keyword_keys: frozenset[str]


#: Share of a faction's datasheets (those with faction keywords) that must carry the parent's keyword.
PARENT_SHARE = 0.9


def parent_factions(filed: Iterable[Filed]) -> dict[tuple[str, str], str]:
    """(format, faction key) -> the faction key it is a sub-faction of.

    A faction of one source whose datasheets (at least PARENT_SHARE of those with faction
    keywords) carry a faction keyword that names another faction of that same source (the
    Ultramarines entries are ADEPTUS ASTARTES, and Adeptus Astartes is a faction of BSData) is
    filed under that faction.
    """
    sets: dict[tuple[str, str], list[frozenset[str]]] = defaultdict(list)
    for item in filed:
        sets[(item.fmt, item.key)].append(item.keyword_keys)
    factions = {key for key in sets}
    parents = {}
    for (fmt, key), keyword_sets in sets.items():
        carried = [s for s in keyword_sets if s]
        counts = Counter(k for s in carried for k in s)
        found = sorted(
            k for k, n in counts.items() if n >= PARENT_SHARE * len(carried) and k != key and (fmt, k) in factions
        )
        if len(found) == 1:
            parents[(fmt, key)] = found[0]
    return parents


def display_names(spellings: Iterable[tuple[str, str]], aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """faction key -> its display name: the alias table's name for it, else the most common
    spelling (normalised like every display name), ties alphabetically."""
    table = config.FACTION_ALIASES if aliases is None else aliases
    named = {faction_key(target): display_text(target) for target in table.values()}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for key, spelling in spellings:
        counts[key][display_text(spelling)] += 1
    names = {key: min(c, key=lambda s: (-c[s], s)) for key, c in counts.items()}
    names.update({k: v for k, v in named.items() if k in names})
    names[NO_FACTION] = NO_FACTION_NAME
    return names


def catalogue_display(catalogue: str) -> str:
    """`Chaos - Chaos Knights` -> `Chaos Knights` (the faction part of a catalogue name)."""
    parts = [p.strip() for p in display_text(catalogue).split(" - ") if p.strip()]
    specific = [p for p in parts if fold(p) not in GENERIC_PARTS]
    return (specific or parts or [catalogue])[-1]
