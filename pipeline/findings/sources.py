"""Findings the run already knows as tables: cross-source conflicts (`source_conflicts`) and BSData
self-check shortfalls (`source_checks` with unexplained elements) (docs/findings.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from pipeline.findings.found import Found, Place


def _datasheet_places(frames: Mapping[str, pl.DataFrame]) -> dict[str, list[Place]]:
    found: dict[str, list[Place]] = {}
    rows = frames["datasheets"].select("unit_id", "source_id", "line", "datasheet_id").sort("datasheet_id")
    for unit_id, source_id, line, _ in rows.iter_rows():
        found.setdefault(unit_id, []).append(Place(source_id, line))
    return found


def _text(value: Any) -> str | int | None:
    return value if value is None or isinstance(value, str | int) else str(value)


def conflicts(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    """One finding per `source_conflicts` row: matched sources disagree on a per-model value."""
    names = dict(zip(frames["units"]["unit_id"].to_list(), frames["units"]["name"].to_list(), strict=True))
    places = _datasheet_places(frames)
    for row in frames["source_conflicts"].sort("unit_id", "field").iter_rows(named=True):
        values = _json_object(row["values"])
        formats = {k.split(":")[0] for k in values}
        shown = ", ".join(f"{v} in {k}" for k, v in sorted(values.items()))
        yield Found(
            category="source_conflict",
            severity="warning",
            anchor=(row["unit_id"],),
            subject=row["field"],
            message=f"{names.get(row['unit_id'], row['unit_id'])}: {row['field']} differs: {shown}; "
            f"chosen {row['chosen']} ({row['chosen_source']})",
            places=tuple(p for p in places.get(row["unit_id"], []) if (p.source_id or "").split(":")[0] in formats),
            unit_ids=(row["unit_id"],),
            values={k: _text(v) for k, v in sorted(values.items())},
        )


def check_shortfalls(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    """One finding per BSData self-check with elements neither published nor explained."""
    checks = frames.get("source_checks")
    if checks is None:
        return
    for row in checks.filter(pl.col("unexplained") > 0).sort("source_id", "check_name").iter_rows(named=True):
        reasons = _json_object(row["reasons"])
        unexplained = {k: int(v) for k, v in sorted(reasons.items()) if k.startswith("unexplained")}
        yield Found(
            category="self_check_shortfall",
            severity="info",
            anchor=(row["source_id"],),
            subject=row["check_name"],
            message=f"{row['source_id']}: {row['unexplained']} of {row['expected']} {row['check_name']} elements "
            f"neither published nor explained",
            places=(Place(row["source_id"]),),
            values={k: row[k] for k in ("expected", "published", "explained", "unexplained")} | unexplained,
        )


def _json_object(value: Any) -> dict[str, Any]:
    """A JSON-valued column as a dict, whether the frame holds it as text or as a struct."""
    return dict(json.loads(value)) if isinstance(value, str) else dict(value or {})
