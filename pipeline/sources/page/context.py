"""The state one page parse shares across its section parsers: records, keys and fragment accounting in one
place (docs/sources.md#page-lines-fragments-and-accounting)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pipeline.sources.accounting import invalid_reason, quarantine_row
from pipeline.sources.page.lines import Fragment, FragmentLedger
from schemas.records import QuarantineRow, Record

R = TypeVar("R", bound=Record)
_PROVENANCE = {"source_id", "line"}


@dataclass
class PageContext:
    source_id: str
    fragments: FragmentLedger
    datasheet_id: str | None = None
    faction: str | None = None
    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _keys: dict[tuple[Any, ...], Record] = field(default_factory=dict)
    _quarantine: dict[tuple[int, str], tuple[str, list[str]]] = field(default_factory=dict)

    @staticmethod
    def key_of(record: Record) -> tuple[Any, ...] | None:
        if not record.KEY:
            return None
        return (record.TABLE, *(getattr(record, k) for k in record.KEY))

    @staticmethod
    def same_content(a: Record, b: Record) -> bool:
        return a.model_dump(exclude=_PROVENANCE) == b.model_dump(exclude=_PROVENANCE)

    def existing(self, record: Record) -> Record | None:
        key = self.key_of(record)
        return None if key is None else self._keys.get(key)

    def emit(self, record: Record, frags: list[Fragment]) -> bool:
        """Add a record made from `frags`; a repeat of an identical record is a duplicate, a
        different record under the same primary key is quarantined (keys stay unique)."""
        key = self.key_of(record)
        if key is not None and key in self._keys:
            fresh = [f for f in frags if f.disposition is None]
            if self.same_content(self._keys[key], record):
                for frag in fresh:
                    self.duplicate(frag, f"repeat of {record.TABLE} {key[1:]}")
            elif fresh:
                self.quarantine(fresh, f"second {record.TABLE} row with key {key[1:]}", record.TABLE)
            else:
                self.notes.append(f"dropped a second {record.TABLE} row with key {key[1:]}")
            return False
        if key is not None:
            self._keys[key] = record
        self.records.append(record)
        for frag in frags:
            if frag.disposition is None:
                self.fragments.mark(frag, "record", target=record.TABLE)
        return True

    def build(self, kind: type[R], factory: Callable[[], R], frags: list[Fragment], section: str) -> R | None:
        """Run a factory of `kind` records; a ValueError (pydantic's included) quarantines the fragments."""
        try:
            return factory()
        except ValueError as exc:
            self.quarantine(frags, invalid_reason(kind.TABLE, exc), section)
            return None

    def record_text(self, frag: Fragment, target: str) -> None:
        """A fragment whose text went into a record emitted from other fragments."""
        self.fragments.mark(frag, "record", target=target)

    def duplicate(self, frag: Fragment, what: str) -> None:
        self.fragments.mark(frag, "duplicate", target=what)

    def furniture(self, frag: Fragment, what: str) -> None:
        self.fragments.mark(frag, "furniture", target=what)

    def quarantine(self, frags: list[Fragment], reason: str, section: str) -> None:
        """Quarantine fragments; one row per (line, reason) holds all of that line's raw text."""
        for frag in frags:
            if frag.disposition == "quarantine":
                continue
            self.fragments.mark(frag, "quarantine", reason=reason)
            frag.section = frag.section or section
            self._quarantine.setdefault((frag.line, reason), (section, []))[1].append(frag.raw)

    def quarantine_rows(self) -> list[QuarantineRow]:
        return [
            quarantine_row(self.source_id, line, reason, "".join(raws), table)
            for (line, reason), (table, raws) in sorted(self._quarantine.items())
        ]
