"""Weapons of one unit across sources: the same weapon matched by name, its
characteristics compared."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.reconcile.keys import weapon_words
from pipeline.reconcile.member import Member
from pipeline.reconcile.names import Cluster, Item, cluster_items
from pipeline.reconcile.precedence import Choice, Offer, choose
from pipeline.reconcile.profiles import render
from schemas.records import Weapon

WEAPON_FIELDS = ("range_inches", "attacks", "skill", "strength", "ap", "damage", "abilities")


def _items(member: Member) -> list[Item[Weapon]]:
    return [Item(w.kind, w.name, weapon_words(w.name), w) for w in member.weapons]


def weapon_clusters(members: Sequence[Member]) -> list[Cluster[Weapon]]:
    """Clusters of the same weapon across the unit's datasheets (freshest first)."""
    return cluster_items(members, _items, affixes=True)


def _characteristic(weapon: Weapon, field: str) -> object:
    value = getattr(weapon, field)
    return value if isinstance(value, (int, list)) or value is None else str(value)


def weapon_choices(cluster: Cluster[Weapon]) -> dict[str, Choice]:
    """Chosen value of each characteristic of one weapon (only worth it when matched)."""
    choices = {}
    for field in WEAPON_FIELDS:
        offers = [
            Offer(w.source_id or m.sheet.source_id, m.dating, render(field, _characteristic(w, field)), m.datasheet_id)
            for m, item in cluster.entries
            for w in [item.record]
        ]
        choices[field] = choose(offers)
    return choices


def weapon_labels(clusters: Sequence[Cluster[Weapon]]) -> list[str]:
    """A unique display name per cluster: its freshest name, with the kind if two share it."""
    names = [c.name for c in clusters]
    labels = [f"{c.name} ({c.kind})" if names.count(c.name) > 1 else c.name for c in clusters]
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return unique
