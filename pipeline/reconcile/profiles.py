"""Model statlines of one unit across sources: which profiles are the same model, and
which value of each stat is chosen.

Each datasheet has a main profile — the model named like the unit, else its first
model — and the main profiles of all sources are the unit's statline, whatever they
are called (`Leman Russ Battle Tank` on a `Leman Russ Eradicator` sheet). Other
models are matched by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.reconcile.keys import name_key, singular_key
from pipeline.reconcile.members import Member
from pipeline.reconcile.names import Cluster, Item, cluster_items
from pipeline.reconcile.precedence import Choice, Offer, choose, choose_paired
from schemas.records import ModelProfile

STAT_FIELDS = ("movement", "toughness", "save", "invuln", "wounds", "leadership", "oc")
#: Fields written as a roll target (`3+`) when shown in a conflict.
ROLL_FIELDS = frozenset({"save", "invuln", "leadership", "skill"})


def render(field: str, value: Any) -> str | None:
    """A value as shown in `source_conflicts` (`3+` for roll targets, lists joined)."""
    if value is None:
        return None
    if isinstance(value, list):
        return ", ".join(sorted(str(v) for v in value)) or "none"
    return f"{value}+" if field in ROLL_FIELDS else str(value)


def _main_first(member: Member) -> list[ModelProfile]:
    """The member's profiles with its main profile first."""
    wanted = singular_key(member.name_key)
    named = [p for p in member.profiles if singular_key(name_key(p.name)) == wanted]
    main = named[0] if named else (member.profiles[0] if member.profiles else None)
    return [] if main is None else [main, *(p for p in member.profiles if p is not main)]


def _items(member: Member) -> list[Item[ModelProfile]]:
    return [Item("model", p.name, tuple(name_key(p.name).split()), p) for p in _main_first(member)]


def _seed_main(
    member: Member, items: list[Item[ModelProfile]], clusters: list[Cluster[ModelProfile]]
) -> dict[int, int]:
    """Main profiles form cluster 0: the model named like the main model of a fresher
    source if there is one (sources list models in different orders), else this
    datasheet's own main profile."""
    if not items or not clusters:
        return {}
    main_names = {singular_key(" ".join(i.words)) for i in clusters[0].items}
    same = [i for i, item in enumerate(items) if singular_key(" ".join(item.words)) in main_names]
    return {same[0] if same else 0: 0}


def profile_clusters(members: Sequence[Member]) -> list[Cluster[ModelProfile]]:
    """Clusters of the same model across the unit's datasheets; cluster 0 is the main statline."""
    return cluster_items(members, _items, affixes=False, seed=_seed_main)


def _offers(cluster: Cluster[ModelProfile], field: str) -> list[Offer]:
    return [
        Offer(
            p.source_id or m.sheet.source_id,
            m.dating,
            render(field, getattr(p, field)),
            m.datasheet_id,
            getattr(p, field),
        )
        for m, item in cluster.entries
        for p in [item.record]
    ]


def stat_choices(cluster: Cluster[ModelProfile]) -> dict[str, Choice]:
    """The chosen value of every stat of one model; the invuln condition goes with the invuln."""
    choices = {field: choose(_offers(cluster, field)) for field in STAT_FIELDS}
    conditions = [
        Offer(
            p.source_id or m.sheet.source_id, m.dating, p.invuln_condition or "any", m.datasheet_id, p.invuln_condition
        )
        for m, item in cluster.entries
        for p in [item.record]
        if p.invuln is not None
    ]
    choices["invuln_condition"] = choose_paired(choices["invuln"], "invuln", conditions)
    return choices
