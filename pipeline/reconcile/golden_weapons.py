"""A unit's golden weapon profiles (`unit_weapons`): the freshest source's row of each matched weapon.

A weapon profile is taken whole, never mixed from several sources (a NULL skill means
Torrent, not "unknown"); every column's provenance names the row's source and whether
the other sources agree. Conflicts are listed per characteristic as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.reconcile.keys import display_name, weapon_words
from pipeline.reconcile.member import Member
from pipeline.reconcile.names import Cluster, Item
from pipeline.reconcile.precedence import Choice, Offer, whole_row_reason
from pipeline.reconcile.profiles import render
from pipeline.reconcile.weapons import WEAPON_FIELDS, weapon_choices, weapon_clusters, weapon_labels
from schemas.golden import UnitWeapon
from schemas.records import Weapon

#: Columns whose provenance is given (the others are ids, derived, or the row's own).
PROVENANCE_FIELDS = ("name", *WEAPON_FIELDS)


def _value(weapon: Weapon, field: str) -> str | None:
    value = getattr(weapon, field)
    return render(field, value if isinstance(value, (int, list, str)) or value is None else str(value))


def _reason(cluster: Cluster[Weapon], field: str) -> str:
    offers = [Offer(item.record.source_id or m.sheet.source_id, m.dating, _value(item.record, field))
              for m, item in cluster.entries]  # fmt: skip
    return whole_row_reason(offers[0], offers[1:])


def _golden_row(unit_id: str, cluster: Cluster[Weapon]) -> UnitWeapon:
    member, item = cluster.entries[0]
    weapon = item.record
    source = weapon.source_id or member.sheet.source_id
    inherited = member.copy_of if weapon.datasheet_id != member.datasheet_id else None
    fields = {k: v for k, v in weapon if k not in {"name"}}
    return UnitWeapon(
        **fields,
        name=display_name(weapon.name),
        unit_id=unit_id,
        weapon_ids=list(dict.fromkeys(i.record.weapon_id for _, i in cluster.entries)),
        inherited_from=inherited,
        provenance={f: f"{source} ({reason})" for f, reason in _reasons(cluster).items()},
    )


def _reasons(cluster: Cluster[Weapon]) -> dict[str, str]:
    """Each provenance field's reason; a row of one source has no other to agree or disagree with, so one
    reason serves every field."""
    if len(cluster.entries) == 1:
        return dict.fromkeys(PROVENANCE_FIELDS, _reason(cluster, PROVENANCE_FIELDS[0]))
    return {f: _reason(cluster, f) for f in PROVENANCE_FIELDS}


def _profile(weapon: Weapon) -> tuple[object, ...]:
    return tuple(_value(weapon, f) for f in ("kind", *WEAPON_FIELDS))


def _repeats(members: Sequence[Member], clusters: Sequence[Cluster[Weapon]]) -> list[Cluster[Weapon]]:
    """A datasheet's second weapon of a name with another profile (a sergeant's Combi-bolter at BS2
    beside the squad's at BS3): matching uses the first of a name, so each repeat is its own weapon."""
    clustered = {item.record.weapon_id for c in clusters for item in c.items}
    unclustered = [(m, w) for m in members for w in m.weapons if w.weapon_id not in clustered]
    if not unclustered:  # the usual case: no profile needs comparing
        return []
    seen = {(m.datasheet_id, _profile(item.record)) for c in clusters for m, item in c.entries}
    extra: list[Cluster[Weapon]] = []
    for member, weapon in unclustered:
        if (member.datasheet_id, _profile(weapon)) in seen:
            continue
        seen.add((member.datasheet_id, _profile(weapon)))
        cluster: Cluster[Weapon] = Cluster(kind=weapon.kind, name=weapon.name)
        cluster.add(member, Item(weapon.kind, weapon.name, weapon_words(weapon.name), weapon))
        extra.append(cluster)
    return extra


def unit_weapons(unit_id: str, members: Sequence[Member]) -> tuple[list[UnitWeapon], list[tuple[str, Choice]]]:
    """The golden weapons of a unit, and (field, choice) of each characteristic its sources disagree on."""
    clusters = weapon_clusters(members)
    rows = _unique_by_weapon_id([_golden_row(unit_id, c) for c in [*clusters, *_repeats(members, clusters)]])
    conflicts = []
    for label, cluster in zip(weapon_labels(clusters), clusters, strict=True):
        if len({m.datasheet_id for m, _ in cluster.entries}) > 1:
            conflicts += [(f"weapon:{label}:{name}", c) for name, c in weapon_choices(cluster).items() if c.conflict]
    return rows, conflicts


def _unique_by_weapon_id(rows: list[UnitWeapon]) -> list[UnitWeapon]:
    """One row per weapon_id (a source row repeated within one datasheet stays one golden weapon)."""
    return list({row.weapon_id: row for row in reversed(rows)}.values())[::-1]
