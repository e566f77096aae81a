"""Datasheets, model statlines and weapon profiles of the Wahapedia export: assembles records and ids from
the cell rules in `rows` (docs/sources.md#wahapedia-judgement-calls)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache, partial

from pipeline.ids import slug
from pipeline.normalise.derived import best_damage_reduction, best_fnp
from pipeline.normalise.html import html_to_text, html_to_text_or_none
from pipeline.normalise.text import parse_inches
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.sources.wahapedia.details import UnitFacts, known_datasheet
from pipeline.sources.wahapedia.rows import (
    clean,
    invuln_condition,
    invuln_note,
    optional,
    parse_int,
    parse_movement,
    parse_roll,
    parse_stat,
    ws_id,
)
from pipeline.sources.wahapedia.rules import Lookups
from pipeline.sources.wahapedia.tables import Keyed, Row, Table, curate_keyed, curate_rows
from schemas.dice import Dice, parse_dice
from schemas.records import Datasheet, ModelProfile, Record, Weapon
from schemas.weapon_abilities import WeaponAbility

WEAPON_KINDS = {"ranged": "ranged", "melee": "melee"}


def datasheets_with_models(models: Table) -> set[str]:
    return {row.get("datasheet_id").strip() for row in models.rows}


def _datasheet(row: Row, lookups: Lookups, source_id: str) -> Datasheet:
    faction = lookups.faction(row.get("faction_id"))
    if faction is None:
        raise ValueError("no faction")
    publication = lookups.publications.get(row.get("source_id").strip())
    return Datasheet(
        datasheet_id=ws_id(row.get("id")), source_id=source_id, line=row.line, faction=faction,
        name=clean(row.get("name")), role=optional(row.get("role")),
        legend=html_to_text_or_none(row.get("legend")), loadout=html_to_text_or_none(row.get("loadout")),
        transport=html_to_text_or_none(row.get("transport")), damaged_w=optional(row.get("damaged_w")),
        damaged_description=html_to_text_or_none(row.get("damaged_description")),
        leader_text=html_to_text_or_none(row.get("leader_footer")),
        source_book=publication.name if publication else None,
        source_date=publication.date if publication else None,
    )  # fmt: skip


def read_datasheets(table: Table, lookups: Lookups, with_models: set[str], names: dict[str, str]) -> Iterator[Record]:
    """Datasheets; fills `names` (raw id -> name) with every curated one.

    A `virtual` datasheet without any model (the site's "Example Wargear" page) is
    not a unit and is quarantined, with everything that hangs off it.
    """

    def build(row: Row) -> Keyed:
        code = row.get("id").strip()
        if row.get("virtual").strip() == "true" and code not in with_models:
            raise ValueError("virtual datasheet without models")
        record = _datasheet(row, lookups, table.ledger.source_id)
        return Keyed((code,), [record], partial(names.__setitem__, code, record.name))

    return curate_keyed(table, "datasheets", build)


def _base_size(row: Row) -> str | None:
    size, note = clean(row.get("base_size")), clean(row.get("base_size_descr"))
    return f"{size} ({note})" if size and note else (size or note or None)


def _model_profile(row: Row, code: str, name: str, facts: UnitFacts, source_id: str) -> ModelProfile:
    invuln = parse_roll(row.get("inv_sv"), "invulnerable save")
    footnote = row.get("inv_sv_descr")
    fnp = best_fnp(facts.abilities.get(code, []))
    reduction = best_damage_reduction(facts.abilities.get(code, []))
    return ModelProfile(
        profile_id=f"{ws_id(code)}:{parse_int(row.get('line'), 'line')}", datasheet_id=ws_id(code),
        name=name, movement=parse_movement(row.get("M")), toughness=parse_stat(row.get("T"), "toughness"),
        save=parse_roll(row.get("Sv"), "save"), invuln=invuln,
        invuln_condition=invuln_condition(footnote, invuln), invuln_note=invuln_note(footnote),
        wounds=parse_stat(row.get("W"), "wounds"), leadership=parse_roll(row.get("Ld"), "leadership"),
        oc=parse_stat(row.get("OC"), "oc"),
        fnp=fnp.value if fnp else None, fnp_source=fnp.source if fnp else None,
        damage_reduction=reduction.value if reduction else None,
        damage_reduction_source=reduction.source if reduction else None,
        keywords=facts.keywords_for(code, name), unit_size=facts.unit_sizes.get(code),
        base_size=_base_size(row), source_id=source_id, line=row.line,
    )  # fmt: skip


def read_models(table: Table, names: dict[str, str], facts: UnitFacts) -> Iterator[Record]:
    """Model statlines; a model row without a name takes its datasheet's name."""

    def build(row: Row) -> Keyed:
        code = known_datasheet(row, names.keys())
        name = clean(row.get("name")) or names[code]
        record = _model_profile(row, code, name, facts, table.ledger.source_id)
        return Keyed((record.profile_id,), [record])

    return curate_keyed(table, "model_profiles", build)


def _weapon_kind(row: Row) -> str:
    kind = WEAPON_KINDS.get(row.get("type").strip().casefold())
    if kind is None:
        raise ValueError("unknown weapon type")
    return kind


def _range(row: Row, kind: str) -> int | None:
    if kind == "melee":
        return None
    try:
        return parse_inches(row.get("range"))
    except ValueError:
        raise ValueError("range not a distance") from None


@lru_cache(maxsize=4096)
def _abilities(description: str) -> tuple[WeaponAbility, ...]:
    """Typed abilities of a description cell (cached: a few hundred distinct cells)."""
    return tuple(parse_ability_list(html_to_text(description)))


@lru_cache(maxsize=1024)
def _dice(text: str, what: str) -> Dice:
    try:
        return parse_dice(text)
    except ValueError:
        raise ValueError(f"{what} not a dice expression") from None


def _skill(row: Row, abilities: tuple[WeaponAbility, ...]) -> int | None:
    """BS/WS as a number; NULL for torrent weapons (no hit roll), whatever the cell says.

    The export writes `N/A` for all torrent weapons but one (a heavy flamer with `3`).
    """
    skill = parse_roll(row.get("BS_WS"), "skill")
    return None if any(a.ability == "torrent" for a in abilities) else skill


def _weapon(row: Row, code: str, weapon_id: str, kind: str, source_id: str) -> Weapon:
    abilities = _abilities(row.get("description"))
    return Weapon(
        weapon_id=weapon_id, datasheet_id=ws_id(code), name=clean(row.get("name")), kind=kind,
        range_inches=_range(row, kind), attacks=_dice(row.get("A"), "attacks"),
        skill=_skill(row, abilities), strength=_dice(row.get("S"), "strength"),
        ap=row.get("AP").strip(), damage=_dice(row.get("D"), "damage"),
        abilities=[a.normalised for a in abilities], typed_abilities=list(abilities),
        source_id=source_id, line=row.line,
    )  # fmt: skip


def read_weapons(table: Table, names: dict[str, str]) -> Iterator[Record]:
    """Weapon profiles, id `wh:<datasheet>:<kind>:<name slug>`.

    A datasheet may list one name twice (a ranged and a melee profile: distinct
    kinds, distinct ids); a name that still collides gets its row's
    `line.line_in_wargear` appended, so every profile keeps its own stable id.
    """
    taken: set[str] = set()

    def build(row: Row) -> list[Record]:
        code, kind = known_datasheet(row, names.keys()), _weapon_kind(row)
        weapon_id = f"{ws_id(code)}:{kind}:{slug(clean(row.get('name')))}"
        if weapon_id in taken:
            weapon_id += f":{row.get('line').strip()}.{row.get('line_in_wargear').strip()}"
        record = _weapon(row, code, weapon_id, kind, table.ledger.source_id)
        if record.weapon_id in taken:
            raise ValueError("duplicate key")
        taken.add(record.weapon_id)
        return [record]

    return curate_rows(table, "weapons", build)
