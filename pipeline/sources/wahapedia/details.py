"""Per-datasheet detail tables (abilities, keywords, points, composition, options, leaders), and the facts
model profiles take from them (`UnitFacts`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from functools import partial

from pipeline.normalise.derived import AbilityText
from pipeline.normalise.html import html_to_text, structured_html_or_none
from pipeline.sources.wahapedia.rows import (
    ability_kind,
    clean,
    model_scope,
    optional,
    parse_int,
    points_cost,
    points_models,
    scope_matches,
    ws_id,
)
from pipeline.sources.wahapedia.rules import Lookups
from pipeline.sources.wahapedia.tables import Keyed, Row, Table, curate_keyed
from schemas.records import Ability, CompositionLine, Keyword, LeaderLink, Points, Record, WargearOption

_FLAGS = {"true": True, "false": False}


@dataclass(frozen=True)
class ScopedKeyword:
    keyword: str
    scope: str | None


@dataclass
class UnitFacts:
    """What model profiles need from the detail tables, by raw datasheet id."""

    abilities: dict[str, list[AbilityText]] = field(default_factory=lambda: defaultdict(list))
    keywords: dict[str, list[ScopedKeyword]] = field(default_factory=lambda: defaultdict(list))
    unit_sizes: dict[str, int] = field(default_factory=dict)

    def keywords_for(self, datasheet: str, model_name: str) -> list[str]:
        """Keywords of one model: the datasheet's own plus those limited to this model."""
        found = [
            k.keyword for k in self.keywords.get(datasheet, []) if k.scope is None or scope_matches(k.scope, model_name)
        ]
        return list(dict.fromkeys(found))

    def add_ability(self, datasheet: str, ability: AbilityText) -> None:
        self.abilities[datasheet].append(ability)

    def add_keyword(self, datasheet: str, keyword: ScopedKeyword) -> None:
        self.keywords[datasheet].append(keyword)

    def add_unit_size(self, datasheet: str, models: int) -> None:
        """Unit size = models in the smallest points option (the Blast target size)."""
        current = self.unit_sizes.get(datasheet)
        self.unit_sizes[datasheet] = models if current is None else min(current, models)


def known_datasheet(row: Row, datasheets: Container[str], column: str = "datasheet_id") -> str:
    code = row.get(column).strip()
    if code not in datasheets:
        raise ValueError("unknown datasheet")
    return code


def _ability_parts(row: Row, lookups: Lookups) -> tuple[str, str]:
    """Name and HTML of a datasheet ability, from the row or its shared ability."""
    shared_id = row.get("ability_id").strip()
    if not shared_id:
        return clean(row.get("name")), row.get("description")
    shared = lookups.shared_abilities.get(shared_id)
    if shared is None:
        raise ValueError("unknown shared ability")
    return clean(row.get("name")) or shared.name, row.get("description") or shared.html


def read_abilities(table: Table, lookups: Lookups, datasheets: set[str], facts: UnitFacts) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code = known_datasheet(row, datasheets)
        name, html = _ability_parts(row, lookups)
        kind, parameter = ability_kind(row.get("type")), optional(row.get("parameter"))
        text, model = html_to_text(html) or None, optional(row.get("model"))
        record = Ability(
            datasheet_id=ws_id(code), name=name, kind=kind, parameter=parameter, text=text, model=model,
            text_html=structured_html_or_none(html),
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        learn = partial(facts.add_ability, code, AbilityText(name, kind, parameter, text))
        return Keyed((code, name, kind, model), [record], learn)

    return curate_keyed(table, "abilities", build)


def _flag(text: str) -> bool:
    flag = _FLAGS.get(text.strip().casefold())
    if flag is None:
        raise ValueError("is_faction_keyword not true/false")
    return flag


def read_keywords(table: Table, datasheets: set[str], facts: UnitFacts) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code = known_datasheet(row, datasheets)
        keyword, scope = clean(row.get("keyword")).upper(), model_scope(row.get("model"))
        if not keyword:
            raise ValueError("empty keyword")
        record = Keyword(
            datasheet_id=ws_id(code), keyword=keyword, is_faction=_flag(row.get("is_faction_keyword")),
            model=scope, source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        learn = partial(facts.add_keyword, code, ScopedKeyword(keyword, None if record.is_faction else scope))
        return Keyed((code, keyword, scope), [record], learn)

    return curate_keyed(table, "keywords", build)


def read_points(table: Table, datasheets: set[str], facts: UnitFacts) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, cost = known_datasheet(row, datasheets), points_cost(row.get("cost"))
        models, description = points_models(row.get("description")), html_to_text(row.get("description"))
        record = Points(
            datasheet_id=ws_id(code), models=models, cost=cost,
            description=description, source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((code, str(models), description), [record], partial(facts.add_unit_size, code, models))

    return curate_keyed(table, "points", build)


def read_composition(table: Table, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, position = known_datasheet(row, datasheets), parse_int(row.get("line"), "line")
        text = html_to_text(row.get("description"))
        if not text:
            raise ValueError("empty text")
        record = CompositionLine(
            datasheet_id=ws_id(code), position=position, text=text,
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((code, str(position)), [record])

    return curate_keyed(table, "unit_composition", build)


def read_options(table: Table, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, position = known_datasheet(row, datasheets), parse_int(row.get("line"), "line")
        html = row.get("description")
        text = html_to_text(html)
        if not text:
            raise ValueError("empty text")
        record = WargearOption(
            datasheet_id=ws_id(code), position=position, text=text,
            text_html=structured_html_or_none(html),
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((code, str(position)), [record])

    return curate_keyed(table, "wargear_options", build)


def read_leaders(table: Table, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        leader = known_datasheet(row, datasheets, "leader_id")
        attached = known_datasheet(row, datasheets, "attached_id")
        record = LeaderLink(
            leader_id=ws_id(leader), attached_id=ws_id(attached),
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((leader, attached), [record])

    return curate_keyed(table, "leaders", build)
