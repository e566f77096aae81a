"""Model profiles matched across sources where one source gives an invulnerable save and another,
with a statline, gives none (docs/findings.md#invulnerable-saves)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import polars as pl

from pipeline.findings.found import Found, Place, element_of


def invuln_one_source(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    columns = ("profile_id", "datasheet_id", "toughness", "invuln", "source_id", "line")
    source = {r["profile_id"]: r for r in frames["model_profiles"].select(columns).to_dicts()}
    names = dict(zip(frames["units"]["unit_id"].to_list(), frames["units"]["name"].to_list(), strict=True))
    golden = frames["unit_profiles"].select("unit_id", "profile_name", "profile_ids").sort("unit_id", "profile_name")
    for row in golden.iter_rows(named=True):
        matched = [source[p] for p in row["profile_ids"] if p in source and source[p]["toughness"] is not None]
        having = [p for p in matched if p["invuln"] is not None]
        lacking = [p for p in matched if p["invuln"] is None]
        if not having or not lacking:
            continue
        unit_name = names.get(row["unit_id"], row["unit_id"])
        saves = ", ".join(sorted({f"{p['invuln']}+ in {p['source_id']}" for p in having}))
        yield Found(
            category="invuln_one_source",
            severity="warning",
            anchor=(row["unit_id"], *sorted(p["profile_id"] for p in matched)),
            subject=row["profile_name"],
            message=f"{unit_name}: {row['profile_name']} has an invulnerable save {saves}; "
            f"none in {', '.join(sorted({p['source_id'] for p in lacking}))}",
            places=tuple(
                Place(p["source_id"], p["line"], element_of(p["profile_id"], p["datasheet_id"])) for p in lacking
            ),
            unit_ids=(row["unit_id"],),
            values={p["profile_id"]: (f"{p['invuln']}+" if p["invuln"] is not None else None) for p in matched},
        )
