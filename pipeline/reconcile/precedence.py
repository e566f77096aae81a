"""Which source wins a field: the freshest one that has a value.

Sources disagree because they were updated at different times, so the most
recent one is the best guess of the current rules. How a datasheet's date is
known (first that applies):

1. `config.SOURCE_DATES[source_id]` — a date configured for that one input file;
2. the datasheet's own `source_date` — Wahapedia: errata date of its publication (Source.csv);
3. its `Source` record's `source_date` — Wahapedia: newest errata date in the export;
4. `config.SOURCE_DATES[format]` — BSData: the June 2026 snapshot date from the data README;
5. otherwise unknown: page exports carry no date, so they rank below every dated source.

Equal dates fall back to the datasheet id, so the order is always the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pipeline import config
from schemas.records import Datasheet


@dataclass(frozen=True)
class Dating:
    """A datasheet's date and how it is known."""

    date: str | None
    basis: str

    @property
    def label(self) -> str:
        return f"{self.date} ({self.basis})" if self.date else "date unknown"


def source_format(source_id: str) -> str:
    """`bsdata:Orks.cat` -> `bsdata` (source ids are `<format>:<file name>`)."""
    return source_id.partition(":")[0]


def date_of(
    sheet: Datasheet,
    source_dates: Mapping[str, str | None],
    configured: Mapping[str, str | None] | None = None,
) -> Dating:
    """The date a datasheet's content is from (see the module docstring for the order)."""
    return dating(sheet.source_id, sheet.source_date, source_dates, configured)


def dating(
    source_id: str,
    own_date: str | None,
    source_dates: Mapping[str, str | None],
    configured: Mapping[str, str | None] | None = None,
) -> Dating:
    """The date of a record of `source_id` that may carry its own date (module docstring: the order)."""
    table = config.SOURCE_DATES if configured is None else configured
    if table.get(source_id):
        return Dating(table[source_id], "configured for the file")
    if own_date:
        return Dating(own_date, "datasheet errata date")
    if source_dates.get(source_id):
        return Dating(source_dates[source_id], "source file date")
    fmt = source_format(source_id)
    if table.get(fmt):
        return Dating(table[fmt], f"configured for {fmt}")
    return Dating(None, "unknown")


def precedence_key(dating: Dating, datasheet_id: str) -> tuple[int, str, str]:
    """Sort key: freshest first, unknown dates last, ties by datasheet id."""
    return (0 if dating.date else 1, _descending(dating.date or ""), datasheet_id)


@lru_cache(maxsize=1024)
def _descending(iso_date: str) -> str:
    """A string that sorts ISO dates newest first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in iso_date)


@dataclass(frozen=True)
class Offer:
    """One source's value for a field."""

    source: str
    dating: Dating
    value: str | None
    datasheet_id: str = ""
    typed: Any = None


@dataclass(frozen=True)
class Choice:
    """The value chosen for a field, from whom, and why."""

    value: str | None
    source: str | None
    reason: str
    values: dict[str, str | None]
    typed: Any = None
    datasheet_id: str | None = None

    @property
    def conflict(self) -> bool:
        return len({v for v in self.values.values()}) > 1

    @property
    def provenance(self) -> str:
        return f"{self.source} ({self.reason})"


def choose(offers: Sequence[Offer]) -> Choice:
    """The freshest offer with a value wins; say why.

    Missing values (None) are no opinion: they neither win nor conflict.
    """
    present = _freshest_first(o for o in offers if o.value is not None)
    if not present:
        return Choice(None, None, "no source has a value", {})
    values = _values_by_source(present)
    winner = present[0]
    if len(present) == 1:
        reason = "only source with a value"
    elif len(set(values.values())) == 1:
        reason = f"{len(present)} sources agree"
    else:
        reason = _conflict_reason(winner, present[1:])
    return Choice(winner.value, winner.source, reason, values, winner.typed, winner.datasheet_id)


def _freshest_first(offers: Iterable[Offer]) -> list[Offer]:
    return sorted(offers, key=lambda o: precedence_key(o.dating, o.datasheet_id))


def _values_by_source(offers: Sequence[Offer]) -> dict[str, str | None]:
    values: dict[str, str | None] = {}
    for offer in offers:
        label = offer.source if offer.source not in values else f"{offer.source} ({offer.datasheet_id})"
        values[label] = offer.value
    return values


def _conflict_reason(winner: Offer, others: Sequence[Offer]) -> str:
    losers = [o for o in others if o.value != winner.value]
    listed = ", ".join(f"{o.source} ({o.dating.label})" for o in losers)
    if any(o.dating.date == winner.dating.date for o in losers):
        return f"same date ({winner.dating.label}) as {listed}: first by datasheet id"
    return f"freshest source ({winner.dating.label}); disagreeing: {listed}"


def choose_paired(lead: Choice, lead_field: str, offers: Sequence[Offer]) -> Choice:
    """A field that only means something with another one (the invulnerable save's
    condition, the model count of the cheapest points option) comes from the same
    datasheet as that field's chosen value, never from a different source."""
    present = _freshest_first(o for o in offers if o.value is not None)
    values = _values_by_source(present)
    chosen = next((o for o in present if o.datasheet_id == lead.datasheet_id), None)
    if chosen is None:
        return Choice(None, None, "no source has a value", values)
    reason = f"goes with {lead_field}: {lead.reason}"
    return Choice(chosen.value, chosen.source, reason, values, chosen.typed, chosen.datasheet_id)


def whole_row_reason(chosen: Offer, others: Sequence[Offer]) -> str:
    """Why a field of a row taken whole (from `chosen`, the freshest) has its value: the other
    rows agree, or which of them disagree."""
    if not others:
        return "only source"
    differ = [o for o in others if o.value != chosen.value]
    if not differ:
        return f"{len(others) + 1} sources agree"
    listed = ", ".join(f"{o.source} ({o.dating.label})" for o in differ)
    return f"freshest source ({chosen.dating.label}); disagreeing: {listed}"
