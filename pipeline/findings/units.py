"""Golden units with no weapon in any source that are neither terrain nor transports
(docs/findings.md#units-without-weapons)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import polars as pl

from pipeline.findings.found import Found, Place, element_of

#: A unit with one of these keywords, or one of these roles, needs no weapon.
WEAPONLESS_KEYWORDS = frozenset({"FORTIFICATION", "TERRAIN", "TRANSPORT", "DEDICATED TRANSPORT"})
WEAPONLESS_ROLES = frozenset({"Fortification", "Dedicated Transport"})


def _keywords(frames: Mapping[str, pl.DataFrame]) -> dict[str, set[str]]:
    sheets = frames["datasheets"].select("datasheet_id", "unit_id")
    rows = frames["keywords"].select("datasheet_id", "keyword").join(sheets, on="datasheet_id", how="inner")
    found: dict[str, set[str]] = {}
    for unit_id, keyword in rows.select("unit_id", "keyword").iter_rows():
        found.setdefault(unit_id, set()).add(keyword)
    return found


def units_without_weapons(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    armed = set(frames["unit_weapons"]["unit_id"].to_list())
    keywords = _keywords(frames)
    sheets = {
        r["datasheet_id"]: r
        for r in frames["datasheets"].select("datasheet_id", "source_id", "line", "transport").to_dicts()
    }
    units = frames["units"].filter(~pl.col("unit_id").is_in(list(armed))).sort("unit_id")
    for unit in units.iter_rows(named=True):
        rows = [sheets[d] for d in unit["datasheet_ids"] if d in sheets]
        if unit["role"] in WEAPONLESS_ROLES or keywords.get(unit["unit_id"], set()) & WEAPONLESS_KEYWORDS:
            continue
        if any(r["transport"] for r in rows):
            continue
        yield Found(
            category="unit_without_weapons",
            severity="warning",
            anchor=(unit["unit_id"],),
            subject=unit["name"],
            message=f"{unit['name']} ({unit['faction']}) has no weapon in any source "
            f"({', '.join(unit['sources'])}) and is neither terrain nor a transport",
            places=tuple(Place(r["source_id"], r["line"], element_of(r["datasheet_id"], None)) for r in rows),
            unit_ids=(unit["unit_id"],),
            values={r["datasheet_id"]: r["source_id"] for r in rows},
        )
