"""`feed/factions/<faction>.json`: one document per faction for apps, one card per unit.

A card is the unit's golden row with its profiles, weapons (each with its damage against the
reference profiles), points, leaders resolved to unit ids both ways, wargear options and the ids
of its stratagems, enhancements and detachment abilities; its datasheets are nested under
`sources`. The document lists those stratagems, enhancements and detachment abilities once, and
the rule text of every weapon ability its weapons use. Layout: docs/dataset.md#release-layout.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.cache.fingerprint import code_fingerprint, key_of, rows_digest, value_digest
from pipeline.errors import PublishError
from pipeline.publish.compact_json import compact_json
from pipeline.publish.document_cache import DOCUMENTS_KIND, DocumentCache
from pipeline.publish.formats import document_factions, faction_document_names, feed_rows
from pipeline.reconcile.keys import fold
from pipeline.runtime import cyclic_gc_paused
from pipeline.store.ddl import MODEL_BY_TABLE

Row = dict[str, Any]

#: Per-source child tables nested under each of a card's sources.
SOURCE_CHILDREN = ("model_profiles", "weapons", "abilities", "keywords", "points", "unit_composition",
                   "wargear_options")  # fmt: skip
#: Link tables: card key -> (link table, its id column, the table listed once per document).
LINKED = {
    "stratagem_ids": ("datasheet_stratagems", "stratagem_id", "stratagems"),
    "enhancement_ids": ("datasheet_enhancements", "enhancement_id", "enhancements"),
    "detachment_ability_ids": ("datasheet_detachment_abilities", "detachment_ability_id", "detachment_abilities"),
}
#: damage_vs_reference outputs given per weapon, scenario and reference profile.
DAMAGE_OUTPUTS = ("damage", "damage_per_100_points")


def _rows(frames: Mapping[str, pl.DataFrame], table: str) -> list[Row]:
    frame = frames.get(table)
    return [] if frame is None else list(feed_rows(frame, MODEL_BY_TABLE.get(table)))


def _grouped(rows: Iterable[Row], key: str, drop: tuple[str, ...] = ()) -> dict[str, list[Row]]:
    found: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        found[row[key]].append({k: v for k, v in row.items() if k not in drop})
    return found


@dataclass(frozen=True)
class Lookups:
    """Everything a card needs, grouped once for all factions."""

    unit_of: dict[str, str]
    sheets: dict[str, list[Row]]
    children: dict[str, dict[str, list[Row]]]
    profiles: dict[str, list[Row]]
    weapons: dict[str, list[Row]]
    points: dict[str, list[Row]]
    damage: dict[tuple[str, str], dict[str, dict[str, dict[str, float | None]]]]
    leads: dict[str, list[str]]
    led_by: dict[str, list[str]]
    linked: dict[str, dict[str, list[str]]]
    listed: dict[str, dict[str, Row]]
    ability_rules: dict[str, Row]


def golden_damage(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows and columns of `damage_vs_reference` a card reads: golden weapons, their outputs."""
    return frame.filter(pl.col("golden")).select("unit_id", "weapon_id", "scenario", "profile_id", *DAMAGE_OUTPUTS)


def _damage(frames: Mapping[str, pl.DataFrame]) -> dict[tuple[str, str], dict[str, dict[str, dict[str, float | None]]]]:
    """(unit_id, weapon_id) -> scenario -> reference profile -> outputs, golden weapons only."""
    found: dict[tuple[str, str], dict[str, dict[str, dict[str, float | None]]]] = {}
    frame = frames.get("damage_vs_reference")
    if frame is None:
        return found
    golden = golden_damage(frame)
    damage, per_100 = DAMAGE_OUTPUTS
    columns = (column.to_list() for column in golden.get_columns())  # a list per column: no tuple built per row
    for unit_id, weapon_id, scenario, profile_id, value, per_100_value in zip(*columns, strict=True):
        cell = found.setdefault((unit_id, weapon_id), {}).setdefault(scenario, {})
        cell[profile_id] = {damage: value, per_100: per_100_value}
    return found


def leaders(frames: Mapping[str, pl.DataFrame], unit_of: Mapping[str, str]) -> tuple[dict[str, list[str]], ...]:
    """(leads, led_by): unit id -> the unit ids it can lead / that can lead it, from `leaders` both ways."""
    leads: dict[str, set[str]] = defaultdict(set)
    led_by: dict[str, set[str]] = defaultdict(set)
    for row in _rows(frames, "leaders"):
        leader, attached = unit_of.get(row["leader_id"]), unit_of.get(row["attached_id"])
        if leader and attached:
            leads[leader].add(attached)
            led_by[attached].add(leader)
    return {k: sorted(v) for k, v in leads.items()}, {k: sorted(v) for k, v in led_by.items()}


def _linked(frames: Mapping[str, pl.DataFrame], unit_of: Mapping[str, str]) -> dict[str, dict[str, list[str]]]:
    found: dict[str, dict[str, list[str]]] = {}
    for card_key, (table, column, _) in LINKED.items():
        per_unit: dict[str, set[str]] = defaultdict(set)
        for row in _rows(frames, table):
            unit = unit_of.get(row["datasheet_id"])
            if unit:
                per_unit[unit].add(row[column])
        found[card_key] = {k: sorted(v) for k, v in per_unit.items()}
    return found


def ability_rules(frames: Mapping[str, pl.DataFrame]) -> dict[str, Row]:
    """Folded rule title -> the canonical rule of that title (weapon abilities preferred)."""
    rules = [r for r in _rows(frames, "rules") if r.get("variant_of") is None]
    rules.sort(key=lambda r: (r.get("kind") != "weapon_ability", r["rule_id"]))
    found: dict[str, Row] = {}
    for rule in rules:
        found.setdefault(
            fold(rule["title"]), {"rule_id": rule["rule_id"], "title": rule["title"], "text": rule["body"]}
        )
    return found


def lookups(frames: Mapping[str, pl.DataFrame], shared: Shared | None = None) -> Lookups:
    """Every card's rows grouped by unit or datasheet, from `frames` (all tables, or one faction's slice of
    them: `frames_by_faction`); `shared` gives the parts read from whole tables (default: from `frames`)."""
    shared = shared_lookups(frames) if shared is None else shared
    return Lookups(
        unit_of=shared.unit_of,
        sheets=_grouped(_rows(frames, "datasheets"), "unit_id"),
        children={t: _grouped(_rows(frames, t), "datasheet_id", drop=("datasheet_id",)) for t in SOURCE_CHILDREN},
        profiles=_grouped(_rows(frames, "unit_profiles"), "unit_id", drop=("unit_id",)),
        weapons=_grouped(_rows(frames, "unit_weapons"), "unit_id", drop=("unit_id",)),
        points=_grouped(_rows(frames, "unit_points"), "unit_id", drop=("unit_id",)),
        damage=_damage(frames),
        leads=shared.leads,
        led_by=shared.led_by,
        linked=_linked(frames, shared.unit_of),
        listed=shared.listed,
        ability_rules=shared.ability_rules,
    )


@dataclass(frozen=True)
class Shared:
    """The lookups every faction's cards read whole: datasheet -> unit, leaders both ways, the listed
    stratagems, enhancements and detachment abilities by id, and the rules by folded title."""

    unit_of: dict[str, str]
    leads: dict[str, list[str]]
    led_by: dict[str, list[str]]
    listed: dict[str, dict[str, Row]]
    ability_rules: dict[str, Row]


#: Tables `shared_lookups` reads whole.
SHARED_TABLES = ("datasheets", "leaders", *(table for _, _, table in LINKED.values()), "rules")


def shared_lookups(frames: Mapping[str, pl.DataFrame]) -> Shared:
    sheets = frames.get("datasheets")
    pairs = [] if sheets is None else sheets.select("datasheet_id", "unit_id").drop_nulls("unit_id").iter_rows()
    unit_of = {datasheet_id: unit_id for datasheet_id, unit_id in pairs if unit_id}
    leads, led_by = leaders(frames, unit_of)
    listed = {table: {r[column]: r for r in _rows(frames, table)} for _, (_, column, table) in LINKED.items()}
    return Shared(unit_of, leads, led_by, listed, ability_rules(frames))


#: Tables a faction's cards read, sliced to the faction by unit or by datasheet (`frames_by_faction`).
BY_UNIT = ("datasheets", "unit_profiles", "unit_weapons", "unit_points", "damage_vs_reference")
BY_DATASHEET = (*SOURCE_CHILDREN, *(table for table, _, _ in LINKED.values()))


def frames_by_faction(
    frames: Mapping[str, pl.DataFrame], unit_ids: Mapping[str, list[str]]
) -> dict[str, dict[str, pl.DataFrame]]:
    """Per faction (faction -> its unit ids), the rows of `BY_UNIT` and `BY_DATASHEET` tables its cards read, in
    table order: each table joined to its rows' faction and split once, not filtered once per faction (26 x 15
    filters held the GIL ≈ 0.5–1 s). Only frames: a faction's rows become Python objects when its document is
    built, one faction at a time (docs/scaling.md#where-the-memory-goes)."""
    owner = pl.DataFrame(
        {"unit_id": [u for ids in unit_ids.values() for u in ids],
         "_faction": [f for f, ids in unit_ids.items() for _ in ids]},
        schema={"unit_id": pl.String, "_faction": pl.String},
    )  # fmt: skip
    sliced: dict[str, dict[str, pl.DataFrame]] = {faction: {} for faction in unit_ids}
    for table in BY_UNIT:
        if table in frames:
            _split(frames[table], owner, "unit_id", table, sliced)
    if "datasheets" in frames:
        sheets = frames["datasheets"].join(owner, on="unit_id", how="inner").select("datasheet_id", "_faction")
    else:
        sheets = pl.DataFrame(schema={"datasheet_id": pl.String, "_faction": pl.String})
    for table in BY_DATASHEET:
        if table in frames:
            _split(frames[table], sheets, "datasheet_id", table, sliced)
    return sliced


def _split(
    frame: pl.DataFrame, owner: pl.DataFrame, on: str, table: str, sliced: dict[str, dict[str, pl.DataFrame]]
) -> None:
    """`frame`'s rows of each faction (by `owner`: `on` -> `_faction`) into `sliced[faction][table]`, in the
    frame's order; a faction with none gets the frame's columns and no rows."""
    joined = frame.join(owner, on=on, how="inner", maintain_order="left")
    parts = joined.partition_by("_faction", as_dict=True, include_key=False, maintain_order=True)
    for faction, tables in sliced.items():
        part = parts.get((faction,))
        tables[table] = frame.clear() if part is None else part  # the join kept the frame's columns, in order


def _source(sheet: Row, found: Lookups) -> Row:
    nested = {k: v for k, v in sheet.items() if k != "unit_id"}
    for table, grouped in found.children.items():
        nested[table] = grouped.get(sheet["datasheet_id"], [])
    return nested


def _wargear_options(sources: list[Row]) -> list[str]:
    """The wargear options of the unit's first datasheet (by precedence) that lists any."""
    for source in sources:
        if source["wargear_options"]:
            return [o["text"] for o in sorted(source["wargear_options"], key=lambda o: o["position"])]
    return []


def card(unit: Row, found: Lookups) -> Row:
    """One unit's card: its golden rows, links resolved to unit ids, its sources nested."""
    unit_id = unit["unit_id"]
    order = {d: i for i, d in enumerate(unit["datasheet_ids"])}
    sheets = sorted(found.sheets.get(unit_id, []), key=lambda s: order.get(s["datasheet_id"], len(order)))
    sources = [_source(s, found) for s in sheets]
    weapons = [
        {**w, "damage_vs_reference": found.damage.get((unit_id, w["weapon_id"]), {})}
        for w in found.weapons.get(unit_id, [])
    ]
    return {
        **unit,
        "profiles": found.profiles.get(unit_id, []),
        "weapons": weapons,
        "unit_points": found.points.get(unit_id, []),
        "leads": found.leads.get(unit_id, []),
        "led_by": found.led_by.get(unit_id, []),
        "wargear_options": _wargear_options(sources),
        **{key: found.linked[key].get(unit_id, []) for key in LINKED},
        "sources": sources,
    }


def _ability_texts(cards: list[Row], found: Lookups) -> dict[str, Row | None]:
    """Every weapon ability the cards' weapons use -> its rule (None when no rule has its name)."""
    texts: dict[str, Row | None] = {}
    for unit in cards:
        for weapon in unit["weapons"]:
            for ability in weapon["abilities"]:
                texts.setdefault(ability, rule_for(ability, found.ability_rules))
    return dict(sorted(texts.items()))


def rule_for(ability: str, rules: Mapping[str, Row]) -> Row | None:
    """`sustained hits d3` -> the Sustained Hits rule; `anti-infantry 4+` -> Anti."""
    words = fold(ability).split()
    for n in range(len(words), 0, -1):
        if " ".join(words[:n]) in rules:
            return rules[" ".join(words[:n])]
    head = fold(ability.split("-")[0]) if "-" in ability else ""
    return rules.get(head)


def faction_document(faction: str, units: list[Row], found: Lookups) -> Row:
    cards = [card(u, found) for u in units]
    listed = {}
    for key, (_, _, table) in LINKED.items():
        ids = sorted({i for c in cards for i in c[key]})
        listed[table] = [found.listed[table][i] for i in ids if i in found.listed[table]]
    return {
        "faction": faction,
        "units": cards,
        **listed,
        "weapon_abilities": _ability_texts(cards, found),
    }


def faction_file_names(factions: Iterable[str]) -> dict[str, str]:
    """Display faction -> file name; two factions whose names slug alike are an error, never an overwrite
    (the release gate `output_names_unique` stops such a run first)."""
    names = faction_document_names(sorted(set(factions)))
    taken: dict[str, str] = {}
    for faction, name in names.items():
        if name.casefold() in taken:
            raise PublishError(f"factions {taken[name.casefold()]!r} and {faction!r} would both be written to {name}")
        taken[name.casefold()] = faction
    return names


def write_faction_documents(
    frames: Mapping[str, pl.DataFrame], release: Path, cache: DocumentCache | None = None
) -> list[str]:
    """One JSON document per faction (not the pseudo faction of units of no faction), each built from its
    faction's rows only, with the cyclic GC paused: the cards are millions of acyclic dicts and lists.
    `cache`: a document whose rows are those of a cached one is placed from it (`document_key`)."""
    folder = release / "feed" / "factions"
    folder.mkdir(parents=True, exist_ok=True)
    cache = DocumentCache.of(None) if cache is None else cache
    shared = shared_lookups(frames)
    shared_key = shared_digest(frames) if cache.enabled else ""
    names = faction_file_names(document_factions(frames))
    unit_frames = frames["units"].partition_by("faction", as_dict=True, maintain_order=True) if names else {}
    sliced_by = frames_by_faction(frames, {f: unit_frames[(f,)]["unit_id"].to_list() for f in names})
    written = []
    with cyclic_gc_paused():
        for faction, name in names.items():
            units, sliced = unit_frames[(faction,)], sliced_by.pop(faction)
            key = functools.partial(document_key, name, shared_key, units, sliced)
            cache.file(key, folder / name, functools.partial(_write_document, faction, units, sliced, shared))
            written.append(name)
    return written


def _write_document(
    faction: str, units: pl.DataFrame, sliced: Mapping[str, pl.DataFrame], shared: Shared, path: Path
) -> None:
    """The faction's document; its units' rows become Python objects only here, for a document not cached."""
    rows = list(feed_rows(units, MODEL_BY_TABLE.get("units")))
    document = faction_document(faction, rows, lookups(sliced, shared))
    path.write_text(compact_json(document, sort_keys=True) + "\n")


def shared_digest(frames: Mapping[str, pl.DataFrame]) -> str:
    """Digest of the whole tables every document reads (`SHARED_TABLES`)."""
    return value_digest(*(rows_digest(frames[t]) if t in frames else None for t in SHARED_TABLES))


def document_key(name: str, shared: str, units: pl.DataFrame, sliced: Mapping[str, pl.DataFrame]) -> str:
    """A document's cache key: its file name, the shared tables' digest, its units' rows and the rows of its
    slices (of `damage_vs_reference` only what a card reads), with the code fingerprint."""
    parts = {t: rows_digest(golden_damage(f) if t == "damage_vs_reference" else f) for t, f in sliced.items()}
    return key_of(
        code_fingerprint(), DOCUMENTS_KIND, name, shared, rows_digest(units), value_digest(sorted(parts.items()))
    )
