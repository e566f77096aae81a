"""One stratagem per distinct stratagem across sources, with one vocabulary for type and detachment.

Wahapedia writes the detachment into the type (`Berzerker Warband – Battle Tactic Stratagem`,
`Core – Epic Deed Stratagem`) and leaves core stratagems without a detachment; page exports
write `Battle Tactic` and detachment `Core`. Rows of all sources with the same detachment and
name (folded) are one stratagem `strat:<detachment>:<name>`; its text is the freshest source's.
Rules: docs/reconcile.md#stratagems.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.dataset import Dataset
from pipeline.ids import slug
from pipeline.reconcile.keys import display_text, fold
from pipeline.reconcile.precedence import Offer, dating, precedence_key, whole_row_reason
from schemas.golden import IdAlias
from schemas.records import DatasheetStratagem, Source, Stratagem

_TYPE = re.compile(r"^(?:(?P<prefix>.+?)\s+[-–—]\s+)?(?P<type>.+?)(?:\s+stratagem)?$", re.IGNORECASE)
#: Detachment of the stratagems every army may use.
CORE = "Core"
MERGED = "one stratagem across sources (same detachment and name)"
#: Fields whose provenance is given (the whole row is the freshest source's).
PROVENANCE_FIELDS = ("cp", "when", "target", "effect", "restrictions")


def split_type(label: str | None) -> tuple[str | None, str | None]:
    """`Berzerker Warband – Battle Tactic Stratagem` -> (`Berzerker Warband`, `Battle Tactic`)."""
    if not label or not label.strip():
        return None, None
    match = _TYPE.match(display_text(label))
    if match is None:
        return None, display_text(label)
    prefix = match["prefix"]
    if prefix:
        prefix = re.sub(r"\s+stratagems?$", "", prefix, flags=re.IGNORECASE)
    return prefix or None, match["type"]


def normalised(row: Stratagem) -> tuple[str | None, str | None]:
    """(detachment, type): the detachment named by the row, else by its type label; `Core` for core."""
    prefix, kind = split_type(row.type)
    detachment = display_text(row.detachment) if row.detachment else prefix
    if detachment is not None and fold(detachment) == fold(CORE):
        detachment = CORE
    return detachment, kind


def stratagem_id(detachment: str | None, name: str) -> str:
    return f"strat:{slug(detachment or 'unknown')}:{slug(name)}"


@dataclass(frozen=True)
class StratagemMerge:
    stratagems: list[Stratagem]
    links: list[DatasheetStratagem]
    aliases: list[IdAlias]
    report: dict[str, Any] = field(default_factory=dict)


def _merged_row(new_id: str, rows: Sequence[Stratagem], source_dates: Mapping[str, str | None]) -> Stratagem:
    """The freshest row, whole, under the new id; each text field says whether the others agree."""
    datings = {id(r): dating(r.source_id or "", None, source_dates) for r in rows}
    ordered = sorted(rows, key=lambda r: precedence_key(datings[id(r)], r.stratagem_id))
    lead = ordered[0]
    detachment, kind = normalised(lead)

    def offer(row: Stratagem, name: str) -> Offer:
        value = getattr(row, name)
        return Offer(row.source_id or "", datings[id(row)], None if value is None else fold(str(value)))

    provenance = {
        name: f"{lead.source_id} ({whole_row_reason(offer(lead, name), [offer(r, name) for r in ordered[1:]])})"
        for name in PROVENANCE_FIELDS
    }
    return lead.model_copy(
        update={
            "stratagem_id": new_id,
            "name": display_text(lead.name),
            "detachment": detachment,
            "type": kind,
            "type_source": lead.type,
            "sources": sorted({r.source_id for r in rows if r.source_id}),
            "provenance": provenance,
        }
    )


def merge_stratagems(dataset: Dataset) -> StratagemMerge:
    """Stratagems of every source merged by (detachment, name); links re-pointed; the old ids aliased."""
    source_dates = {s.source_id: s.source_date for s in dataset.records(Source) if s.source_date}
    groups: dict[tuple[str, str], list[Stratagem]] = defaultdict(list)
    for row in dataset.records(Stratagem):
        detachment, _ = normalised(row)
        groups[(fold(detachment or "unknown"), fold(row.name))].append(row)
    new_id_of: dict[str, str] = {}
    merged = []
    for rows in groups.values():
        detachment, _ = normalised(rows[0])
        new_id = stratagem_id(detachment, rows[0].name)
        new_id_of.update({r.stratagem_id: new_id for r in rows})
        merged.append(_merged_row(new_id, rows, source_dates))
    links = {(link.datasheet_id, new_id_of.get(link.stratagem_id, link.stratagem_id)): link
             for link in dataset.records(DatasheetStratagem)}  # fmt: skip
    aliases = [
        IdAlias(old_id=old, new_id=new, kind="stratagem", since_version="", reason=MERGED)
        for old, new in sorted(new_id_of.items())
        if old != new
    ]
    report = {
        "rows_in": len(dataset.records(Stratagem)),
        "stratagems": len(merged),
        "by_sources": dict(sorted(Counter(len({r.source_id for r in g}) for g in groups.values()).items())),
    }
    return StratagemMerge(
        stratagems=merged,
        links=[link.model_copy(update={"stratagem_id": key[1]}) for key, link in links.items()],
        aliases=aliases,
        report=report,
    )
