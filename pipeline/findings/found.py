"""One finding as the rules produce it, its stable id, and where it is in the sources' files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from pipeline.ids import content_hash


@dataclass(frozen=True, order=True)
class Place:
    """A row of a source file: its source, line and, in XML, the element id a maintainer searches for."""

    source_id: str | None
    line: int | None = None
    element: str | None = None


@dataclass(frozen=True)
class Found:
    """A finding before its id and first release are set. `anchor` holds the stable ids (never a line
    or a row number) that, with the category and subject, identify it from release to release."""

    category: str
    severity: str
    anchor: tuple[str, ...]
    subject: str
    message: str
    places: tuple[Place, ...] = ()
    unit_ids: tuple[str, ...] = ()
    values: Mapping[str, str | int | None] = field(default_factory=dict)

    @property
    def finding_id(self) -> str:
        return f"finding:{self.category}:{content_hash(self.category, *self.anchor, self.subject)}"


def element_of(record_id: str | None, datasheet_id: str | None) -> str | None:
    """The XML element id inside a BSData record id (`bs:<cat>:<entry>:<profile>` -> the profile's id;
    a datasheet id -> its entry's id); None for other sources."""
    if not record_id or not record_id.startswith("bs:"):
        return None
    if datasheet_id and record_id.startswith(datasheet_id + ":"):
        return record_id[len(datasheet_id) + 1 :]
    return record_id.rsplit(":", 1)[-1]


class Locator:
    """Turns places into `path:line (id X)` text, with the path a maintainer knows (sources.path)."""

    def __init__(self, sources: pl.DataFrame) -> None:
        self.paths: dict[str, str] = dict(zip(sources["source_id"].to_list(), sources["path"].to_list(), strict=True))

    def path(self, source_id: str | None) -> str:
        if source_id is None:
            return "?"
        return self.paths.get(source_id) or source_id.partition(":")[2] or source_id

    def text(self, place: Place) -> str:
        text = self.path(place.source_id)
        if place.line is not None:
            text += f":{place.line}"
        if place.element:
            text += f" (id {place.element})"
        return text

    def location(self, places: Iterable[Place]) -> str | None:
        unique = sorted(set(places), key=lambda p: (p.source_id or "", p.line or 0, p.element or ""))
        return "; ".join(self.text(p) for p in unique) or None


def sole(values: Sequence[str | None]) -> str | None:
    """The one distinct value, or None when there are none or several."""
    distinct = {v for v in values if v is not None}
    return distinct.pop() if len(distinct) == 1 else None
