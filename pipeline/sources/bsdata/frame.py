"""Where a BattleScribe unit sits in the file being parsed (its records' source and lines), and how its bad
profiles are quarantined (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from pipeline.sources.accounting import MAX_RAW, clip, invalid_reason, quarantine_row
from pipeline.sources.bsdata.index import Catalogue, Element, Scope
from pipeline.sources.bsdata.text import clean_name
from pipeline.sources.bsdata.walk import ProfileHit
from schemas.records import QuarantineRow


@dataclass(frozen=True)
class UnitFrame:
    """Where a unit sits in the catalogue being parsed."""

    datasheet_id: str
    unit_name: str
    catalogue: Catalogue
    scope: Scope
    line: int

    @property
    def source_id(self) -> str:
        return self.catalogue.source_id

    def child_id(self, profile: Element) -> str:
        """Stable id of a record built from a profile: the datasheet id + the profile's id."""
        return f"{self.datasheet_id}:{profile.get('id') or clean_name(profile.get('name'))}"

    def line_of(self, element: Element, catalogue: Catalogue) -> int:
        """The element's line if it is in the parsed file, else the unit's line there."""
        if catalogue is self.catalogue and element.sourceline:
            return int(element.sourceline)
        return self.line


def raw_xml(element: Element, limit: int = MAX_RAW) -> str:
    """An element's XML as quarantined raw text, clipped to `limit` characters."""
    text: str = etree.tostring(element, encoding="unicode", with_tail=False)
    return clip(text, limit)


def quarantine(frame: UnitFrame, hit: ProfileHit, table: str, exc: ValueError) -> QuarantineRow:
    """A profile that cannot become a `table` record; named with its unit, as a shared profile fails once per unit."""
    name = clean_name(hit.profile.get("name")) or "?"
    return quarantine_row(
        frame.source_id,
        frame.line_of(hit.profile, hit.catalogue),
        invalid_reason(table, exc, f"profile '{name}' of unit '{frame.unit_name}'"),
        raw_xml(hit.profile),
        hit.profile.get("typeName"),
    )
