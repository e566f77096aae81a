"""Per-input parse results: the records and file reports of one parsed item (a page file, a Wahapedia or
BSData folder), keyed by that item's fingerprint and the code, stored as checked JSON.

Records are rebuilt with `model_validate` (every field checked, as when parsing); a field the models
exclude from their dumps (`Weapon.typed_abilities`) is stored beside the dump. An entry that does not
validate is ignored with a warning.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pipeline.cache.entries import read_entry, warn_unfit, write_entry
from pipeline.cache.fingerprint import code_fingerprint, key_of, tree_fingerprint
from pipeline.sources.report import FileReport
from schemas.records import Record

KIND = "parsed"


def _record_types() -> dict[str, type[Record]]:
    found: dict[str, type[Record]] = {}
    pending: list[type[Record]] = [Record]
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending.extend(cls.__subclasses__())
    return found


def parsed_key(item: Path, input_path: Path, fmt: str) -> str:
    """The item's fingerprint, where it lies (published paths are relative to its input) and the code."""
    # absolute, links not resolved: an item may be a link loop (refused by its parser, never followed here)
    return key_of(code_fingerprint(), fmt, os.path.abspath(item), os.path.abspath(input_path), *tree_fingerprint(item))


@functools.cache
def _excluded(cls: type[Record]) -> tuple[tuple[str, TypeAdapter[Any]], ...]:
    """The fields `model_dump` leaves out, each with an adapter to dump it (built once: adapters are costly)."""
    fields: list[tuple[str, Any]] = [(n, info.annotation) for n, info in cls.model_fields.items() if info.exclude]
    return tuple((name, TypeAdapter[Any](annotation)) for name, annotation in fields)


def _dump(record: Record) -> list[Any]:
    cls = type(record)
    data = record.model_dump(mode="json")
    for name, adapter in _excluded(cls):
        data[name] = adapter.dump_python(getattr(record, name), mode="json")
    return [cls.__name__, data]


def dump_records(records: list[Record]) -> list[list[Any]]:
    """Records as JSON: [model name, dump] each."""
    return [_dump(r) for r in records]


def load_records(dumped: list[list[Any]]) -> list[Record]:
    """Records from `dump_records`, each validated; KeyError, TypeError or ValidationError if one does not fit."""
    types = _record_types()
    return [types[name].model_validate(data) for name, data in dumped]


def store_parsed(cache: Path, key: str, records: list[Record], files: list[FileReport]) -> None:
    payload = {"records": dump_records(records), "files": [f.as_dict() for f in files]}
    write_entry(cache, KIND, key, payload)


def load_parsed(cache: Path, key: str) -> tuple[list[Record], list[FileReport]] | None:
    """The item's records and file reports, or None (a miss; a warning if the entry was there but bad)."""
    payload = read_entry(cache, KIND, key)
    if payload is None:
        return None
    try:
        records = load_records(payload["records"])
        files = [file_report(f) for f in payload["files"]]
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        warn_unfit(KIND, key, exc)
        return None
    return records, files


def file_report(data: dict[str, Any]) -> FileReport:
    fields = {**data}
    for name in ("notes", "checks", "findings"):
        fields[name] = tuple(fields.get(name, ()))
    return FileReport(**fields)
