"""Points a maintainer would correct: a larger unit costing less than a smaller one, and one size
listed twice at two prices (docs/findings.md#points)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from pipeline.findings.found import Found, Place
from pipeline.sources.report import ParseReport


def _sheets(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    rows = frames["datasheets"].select("datasheet_id", "name", "unit_id").to_dicts()
    return {r["datasheet_id"]: r for r in rows}


def points_fall(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    """Per datasheet: an option with more models and a lower cost than an option with fewer."""
    sheets = _sheets(frames)
    points = frames["points"].sort("datasheet_id", "models", "cost", "description")
    by_sheet: dict[str, list[dict[str, Any]]] = {}  # one conversion, not one frame per datasheet
    for row in points.to_dicts():
        by_sheet.setdefault(row["datasheet_id"], []).append(row)
    for datasheet_id, rows in by_sheet.items():
        for larger in rows:
            smaller = [r for r in rows if r["models"] < larger["models"] and r["cost"] > larger["cost"]]
            if not smaller:
                continue
            top = max(smaller, key=lambda r: (r["cost"], r["models"]))
            sheet = sheets.get(str(datasheet_id), {})
            subject = f"{larger['models']} models"
            yield Found(
                category="points_fall",
                severity="error",
                anchor=(str(datasheet_id), str(top["models"])),
                subject=subject,
                message=f"{sheet.get('name')}: {larger['models']} models cost {larger['cost']}, less than "
                f"{top['models']} models at {top['cost']}",
                places=(Place(larger["source_id"], larger["line"]), Place(top["source_id"], top["line"])),
                unit_ids=tuple(u for u in [sheet.get("unit_id")] if u),
                values={f"{r['models']} models ({r['description']})": r["cost"] for r in (top, larger)},
            )


def points_size_twice(frames: Mapping[str, pl.DataFrame], report: ParseReport | None) -> Iterator[Found]:
    """A points row the parser refused because a kept row already gave its size (and text) another price."""
    if report is None:
        return
    sheets = _sheets(frames)
    for file in report.files:
        for noted in file.findings:
            if noted.get("kind") != "duplicate key" or noted.get("table") != "points":
                continue
            kept, dropped = noted["kept"][0], noted["dropped"][0]
            sheet = sheets.get(kept["datasheet_id"], {})
            subject = f"{kept['models']} models"
            yield Found(
                category="points_size_twice",
                severity="error",
                anchor=(kept["datasheet_id"], str(kept["description"])),
                subject=subject,
                message=f"{sheet.get('name', kept['datasheet_id'])}: {subject} listed twice, at {kept['cost']} "
                f"and {dropped['cost']} (the second is quarantined)",
                places=(Place(file.source_id, noted["kept_line"]), Place(file.source_id, noted["line"])),
                unit_ids=tuple(u for u in [sheet.get("unit_id")] if u),
                values={f"line {noted['kept_line']} (kept)": kept["cost"], f"line {noted['line']}": dropped["cost"]},
            )
