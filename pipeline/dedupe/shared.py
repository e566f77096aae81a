"""Merge page-export records whose content-derived ids repeat across pages: first kept, NULLs filled,
disagreements reported (docs/dedupe.md#shared-id-merges).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.records import DetachmentAbility, Record, Stratagem

#: Models whose page-export ids are shared across pages, and their tables.
SHARED_MODELS: tuple[type[Record], ...] = (Stratagem, DetachmentAbility)
SHARED_TABLES: tuple[str, ...] = tuple(m.TABLE for m in SHARED_MODELS)
_PROVENANCE = {"source_id", "line"}


@dataclass(frozen=True)
class KeyConflict:
    table: str
    key: tuple[Any, ...]
    field: str
    kept: Any
    dropped: Any
    dropped_source: str | None


@dataclass
class MergeResult:
    records: list[Record]
    collapsed: int = 0
    conflicts: list[KeyConflict] = field(default_factory=list)


def _key(record: Record) -> tuple[Any, ...]:
    return (record.TABLE, *(getattr(record, k) for k in record.KEY))


def _fold(kept: Record, extra: Record, conflicts: list[KeyConflict]) -> Record:
    """`kept` with its NULL fields filled from `extra`; differing values reported."""
    update: dict[str, Any] = {}
    for name in type(kept).model_fields:
        if name in _PROVENANCE:
            continue
        mine, theirs = getattr(kept, name), getattr(extra, name)
        if mine is None and theirs is not None:
            update[name] = theirs
        elif theirs is not None and mine != theirs:
            conflicts.append(KeyConflict(kept.TABLE, _key(kept)[1:], name, mine, theirs, extra.source_id))
    return kept.model_copy(update=update) if update else kept


def merge_shared_records(records: Iterable[Record], tables: Iterable[str] = SHARED_TABLES) -> MergeResult:
    """One record per primary key in `tables` (others pass through untouched, in order)."""
    merged_tables = set(tables)
    out: list[Record] = []
    index: dict[tuple[Any, ...], int] = {}
    result = MergeResult(out)
    for record in records:
        if record.TABLE not in merged_tables or not record.KEY:
            out.append(record)
            continue
        key = _key(record)
        if key in index:
            out[index[key]] = _fold(out[index[key]], record, result.conflicts)
            result.collapsed += 1
        else:
            index[key] = len(out)
            out.append(record)
    return result
