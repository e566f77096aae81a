"""Characteristics written other than the rules write them: a value the parser read loosely (`8+` as
Strength 8) and a weapon ability spelled off its canonical form (`Anti-fly 2`, `Anti Vehicle 3+`)
(docs/findings.md#typos)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from pipeline.findings.found import Found, Place, element_of
from pipeline.normalise.text import collapse_ws, fold_dashes, fold_quotes
from pipeline.normalise.weapon_abilities import parse_weapon_ability
from pipeline.sources.report import ParseReport


def _weapons(frames: Mapping[str, pl.DataFrame]) -> list[dict[str, Any]]:
    sheets = frames["datasheets"].select("datasheet_id", "unit_id", pl.col("name").alias("unit_name"))
    rows = frames["weapons"].select("weapon_id", "datasheet_id", "name", "source_id", "line")
    return rows.join(sheets, on="datasheet_id", how="left").to_dicts()


def loose_values(frames: Mapping[str, pl.DataFrame], report: ParseReport | None) -> Iterator[Found]:
    """Every value the parse report says was read loosely."""
    if report is None:
        return
    weapons = {(r["source_id"], r["line"]): r for r in _weapons(frames) if r["line"] is not None}
    for file in report.files:
        for noted in file.findings:
            if noted.get("kind") != "read loosely":
                continue
            weapon = weapons.get((file.source_id, noted["line"]), {})
            field = str(noted["field"])
            subject = weapon.get("name") or str(noted.get("where"))
            yield Found(
                category="characteristic_typo",
                severity="error",
                anchor=(weapon.get("weapon_id") or f"{file.source_id}:{noted.get('where')}", field),
                subject=subject,
                message=f"{noted.get('where')}: {field.upper()} written {noted['raw']!r}, read as {noted['read_as']}",
                places=(
                    Place(
                        file.source_id, noted["line"], element_of(weapon.get("weapon_id"), weapon.get("datasheet_id"))
                    ),
                ),
                unit_ids=tuple(u for u in [weapon.get("unit_id")] if u),
                values={"field": field, "written": noted["raw"], "read_as": noted["read_as"]},
            )


def _cleaned(raw: str) -> str:
    return collapse_ws(fold_dashes(fold_quotes(raw)).strip().strip("[]").strip()).lower()


def misspelt_abilities(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    """A weapon ability the vocabulary recognises, written differently from its canonical spelling
    (case, brackets, spacing and dash style aside)."""
    weapons = {r["weapon_id"]: r for r in _weapons(frames)}
    rows = frames["weapon_abilities"].filter(pl.col("ability") != "other").sort("weapon_id", "raw")
    read: dict[str, str | None] = {}  # raw text -> its canonical form, None when written so (≈ 200 distinct of 15 k)
    for row in rows.iter_rows(named=True):
        if row["raw"] not in read:
            normalised = parse_weapon_ability(row["raw"]).normalised
            read[row["raw"]] = None if _cleaned(row["raw"]) == normalised else normalised
        canonical = read[row["raw"]]
        if canonical is None:
            continue
        weapon = weapons.get(row["weapon_id"], {})
        yield Found(
            category="characteristic_typo",
            severity="error",
            anchor=(row["weapon_id"], "abilities", row["raw"]),
            subject=weapon.get("name") or row["weapon_id"],
            message=f"{weapon.get('unit_name')}: {weapon.get('name')} ability written {row['raw']!r}, "
            f"read as {canonical!r}",
            places=(Place(row["source_id"], row["line"], element_of(row["weapon_id"], weapon.get("datasheet_id"))),),
            unit_ids=tuple(u for u in [weapon.get("unit_id")] if u),
            values={"field": "abilities", "written": row["raw"], "read_as": canonical},
        )
