"""Export-wide tables (factions, publications, shared abilities, stratagems, enhancements, detachment
abilities) and the link tables that tie them to datasheets (docs/sources.md#wahapedia-export)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

from pipeline.normalise.html import html_to_text, html_to_text_or_none, structured_html_or_none
from pipeline.sources.wahapedia.rows import (
    clean,
    enhancement_cost,
    errata_date,
    optional,
    split_stratagem,
    ws_id,
)
from pipeline.sources.wahapedia.tables import Keyed, Row, Table, curate_keyed, curate_rows
from schemas.records import (
    DatasheetDetachmentAbility,
    DatasheetEnhancement,
    DatasheetStratagem,
    DetachmentAbility,
    Enhancement,
    Record,
    RuleBlock,
    Stratagem,
)


@dataclass(frozen=True)
class SharedAbility:
    """A core or faction ability that datasheets point to by id."""

    name: str
    text: str
    html: str


@dataclass(frozen=True)
class Publication:
    name: str
    date: str | None


@dataclass
class Lookups:
    """What the datasheet tables resolve their ids against."""

    factions: dict[str, str] = field(default_factory=dict)
    publications: dict[str, Publication] = field(default_factory=dict)
    shared_abilities: dict[str, SharedAbility] = field(default_factory=dict)
    stratagems: set[str] = field(default_factory=set)
    enhancements: set[str] = field(default_factory=set)
    detachment_abilities: set[str] = field(default_factory=set)

    def faction(self, code: str) -> str | None:
        """Faction name of a code; None for no code; ValueError for an unknown one."""
        code = code.strip()
        if not code:
            return None
        if code not in self.factions:
            raise ValueError("unknown faction")
        return self.factions[code]

    def newest_date(self) -> str | None:
        dates = [p.date for p in self.publications.values() if p.date]
        return max(dates) if dates else None


def read_factions(table: Table, lookups: Lookups) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, name = row.get("id").strip(), clean(row.get("name"))
        if not code or not name:
            raise ValueError("no id or name")
        return Keyed((code,), [], partial(lookups.factions.__setitem__, code, name))

    return curate_keyed(table, "factions", build)


def _publication_name(row: Row) -> str:
    name, kind, version = clean(row.get("name")), clean(row.get("type")), clean(row.get("version"))
    label = f"{kind}: {name}" if kind else name
    return f"{label} v{version}" if version else label


def read_publications(table: Table, lookups: Lookups) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code = row.get("id").strip()
        if not code or not clean(row.get("name")):
            raise ValueError("no id or name")
        publication = Publication(_publication_name(row), errata_date(row.get("errata_date")))
        return Keyed((code,), [], partial(lookups.publications.__setitem__, code, publication))

    return curate_keyed(table, "sources", build)


def read_shared_abilities(table: Table, lookups: Lookups) -> Iterator[Record]:
    """Abilities.csv: one rule block per row; the same id for several factions is one lookup."""

    def build(row: Row) -> list[Record]:
        code, name, html = row.get("id").strip(), clean(row.get("name")), row.get("description")
        if not code or not name:
            raise ValueError("no id or name")
        text = html_to_text(html)
        lookups.shared_abilities.setdefault(code, SharedAbility(name, text, html))
        kind = "faction" if row.get("faction_id").strip() else "core"
        source_id, line = table.ledger.source_id, row.line
        return [RuleBlock(title=name, body=text, kind=kind, source_id=source_id, line=line)]

    return curate_rows(table, "shared_abilities", build)


def _cp(text: str) -> int | None:
    cleaned = text.strip()
    if not cleaned:
        return None
    if not cleaned.isdigit():
        raise ValueError("cp not an integer")
    return int(cleaned)


def read_stratagems(table: Table, lookups: Lookups) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code = row.get("id").strip()
        sections = split_stratagem(html_to_text(row.get("description")))
        record = Stratagem(
            stratagem_id=ws_id(code), name=clean(row.get("name")), cp=_cp(row.get("cp_cost")),
            detachment=optional(row.get("detachment")), type=optional(row.get("type")),
            faction=lookups.faction(row.get("faction_id")), legend=html_to_text_or_none(row.get("legend")),
            source_id=table.ledger.source_id, line=row.line, **sections,
        )  # fmt: skip
        return Keyed((code,), [record], partial(lookups.stratagems.add, code))

    return curate_keyed(table, "stratagems", build)


def read_enhancements(table: Table, lookups: Lookups) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, html = row.get("id").strip(), row.get("description")
        record = Enhancement(
            enhancement_id=ws_id(code), faction=lookups.faction(row.get("faction_id")),
            name=clean(row.get("name")), cost=enhancement_cost(row.get("cost")),
            detachment=optional(row.get("detachment")), legend=html_to_text_or_none(row.get("legend")),
            text=html_to_text_or_none(html), text_html=structured_html_or_none(html),
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((code,), [record], partial(lookups.enhancements.add, code))

    return curate_keyed(table, "enhancements", build)


def read_detachment_abilities(table: Table, lookups: Lookups) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        code, html = row.get("id").strip(), row.get("description")
        record = DetachmentAbility(
            detachment_ability_id=ws_id(code), faction=lookups.faction(row.get("faction_id")),
            name=clean(row.get("name")), detachment=optional(row.get("detachment")),
            legend=html_to_text_or_none(row.get("legend")), text=html_to_text_or_none(html),
            text_html=structured_html_or_none(html), source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((code,), [record], partial(lookups.detachment_abilities.add, code))

    return curate_keyed(table, "detachment_abilities", build)


def _link_ids(row: Row, column: str, datasheets: set[str], targets: set[str]) -> tuple[str, str]:
    datasheet, target = row.get("datasheet_id").strip(), row.get(column).strip()
    if datasheet not in datasheets:
        raise ValueError("unknown datasheet")
    if target not in targets:
        raise ValueError(f"unknown {column.removesuffix('_id').replace('_', ' ')}")
    return datasheet, target


def read_datasheet_stratagems(table: Table, lookups: Lookups, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        datasheet, code = _link_ids(row, "stratagem_id", datasheets, lookups.stratagems)
        link = DatasheetStratagem(
            datasheet_id=ws_id(datasheet), stratagem_id=ws_id(code), source_id=table.ledger.source_id, line=row.line
        )
        return Keyed((datasheet, code), [link])

    return curate_keyed(table, "datasheet_stratagems", build)


def read_datasheet_enhancements(table: Table, lookups: Lookups, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        datasheet, code = _link_ids(row, "enhancement_id", datasheets, lookups.enhancements)
        link = DatasheetEnhancement(
            datasheet_id=ws_id(datasheet), enhancement_id=ws_id(code), source_id=table.ledger.source_id, line=row.line
        )
        return Keyed((datasheet, code), [link])

    return curate_keyed(table, "datasheet_enhancements", build)


def read_datasheet_detachment_abilities(table: Table, lookups: Lookups, datasheets: set[str]) -> Iterator[Record]:
    def build(row: Row) -> Keyed:
        datasheet, code = _link_ids(row, "detachment_ability_id", datasheets, lookups.detachment_abilities)
        link = DatasheetDetachmentAbility(
            datasheet_id=ws_id(datasheet), detachment_ability_id=ws_id(code),
            source_id=table.ledger.source_id, line=row.line,
        )  # fmt: skip
        return Keyed((datasheet, code), [link])

    return curate_keyed(table, "datasheet_detachment_abilities", build)
