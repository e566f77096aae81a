"""Weapon profiles that disagree within one source: the same weapon in one faction with other S/AP/D,
or other abilities only; the same weapon on datasheets of one name (docs/findings.md#weapons)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import polars as pl

from pipeline.findings.found import Found, Place, element_of
from pipeline.reconcile.keys import name_key, weapon_words

Row = dict[str, Any]
GroupKey = Callable[[Row], tuple[Any, ...]]


def weapon_rows(frames: Mapping[str, pl.DataFrame]) -> list[Row]:
    """Every source weapon row with its datasheet's name and its unit's faction and Legends status."""
    sheets = frames["datasheets"].select("datasheet_id", pl.col("name").alias("sheet_name"), "unit_id")
    units = frames["units"].select("unit_id", pl.col("faction").alias("unit_faction"), "legend")
    rows = frames["weapons"].join(sheets, on="datasheet_id", how="inner").join(units, on="unit_id", how="inner")
    found = rows.with_columns(pl.col("source_id").str.split(":").list.first().alias("format")).to_dicts()
    for row in found:
        row["words"] = " ".join(weapon_words(row["name"]))
        row["abilities_text"] = ", ".join(sorted(row["abilities"] or []))
    return found


def _stat(label: str, dice: str) -> str:
    """`A2`, `A D6` (a space where the dice text starts with a letter)."""
    return f"{label} {dice}" if dice[:1].isalpha() else f"{label}{dice}"


def profile_text(row: Row, *, abilities: bool = False) -> str:
    """`24" A2 BS3+ S4 AP-1 D1`, `A D6`, `D D3+1` (melee: `Melee A4 WS3+ ...`; Torrent: no skill)."""
    reach = "Melee" if row["kind"] == "melee" else f'{row["range_inches"]}"'
    skill = "" if row["skill"] is None else f" {'WS' if row['kind'] == 'melee' else 'BS'}{row['skill']}+"
    text = f"{reach} {_stat('A', row['attacks'])}{skill} {_stat('S', row['strength'])} AP{row['ap']} "
    text += _stat("D", row["damage"])
    if abilities:
        text += f" [{row['abilities_text']}]" if row["abilities_text"] else " [no abilities]"
    return text


def _place(row: Row) -> Place:
    return Place(row["source_id"], row["line"], element_of(row["weapon_id"], row["datasheet_id"]))


def _label(row: Row, by_faction: bool) -> str:
    where = row["sheet_name"] if by_faction else f"{row['sheet_name']} ({row['unit_faction']})"
    return f"{where} - {row['weapon_id']}"


def _groups(rows: list[Row], key: GroupKey) -> Iterator[tuple[tuple[Any, ...], list[Row]]]:
    grouped: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
    for group_key, members in sorted(grouped.items(), key=lambda kv: repr(kv[0])):
        yield group_key, sorted(members, key=lambda r: r["weapon_id"])


def _variants(members: list[Row], abilities: bool) -> dict[str, list[Row]]:
    variants: dict[str, list[Row]] = defaultdict(list)
    for row in members:
        variants[profile_text(row, abilities=abilities)].append(row)
    return variants


def _found(category: str, severity: str, key: tuple[Any, ...], members: list[Row], what: str,
           abilities: bool) -> Found:  # fmt: skip
    variants = _variants(members, abilities)
    name = members[0]["name"]
    counted = ", ".join(f"{text} x{len(rows)}" for text, rows in sorted(variants.items()))
    by_faction = category != "weapon_profile_in_datasheet"
    return Found(
        category=category,
        severity=severity,
        anchor=tuple(str(k) for k in key),
        subject=name,
        message=f"{name} ({members[0]['kind']}) has {len(variants)} profiles {what} ({members[0]['format']}): "
        f"{counted}",
        places=tuple(_place(r) for r in members),
        unit_ids=tuple(sorted({r["unit_id"] for r in members})),
        values={_label(r, by_faction): profile_text(r, abilities=abilities) for r in members},
    )


def _differing(
    rows: list[Row], key: GroupKey, compared: Callable[[Row], object]
) -> Iterator[tuple[tuple[Any, ...], list[Row]]]:
    for group_key, members in _groups(rows, key):
        if len({compared(r) for r in members}) > 1:
            yield group_key, members


def _faction_key(row: Row) -> tuple[Any, ...]:
    return (row["format"], row["unit_faction"], row["words"], row["kind"], row["range_inches"], row["attacks"],
            row["skill"])  # fmt: skip


def _stats(row: Row) -> tuple[Any, ...]:
    return (row["strength"], row["ap"], row["damage"])


def profile_differs(rows: list[Row]) -> Iterator[Found]:
    """Same name, kind, range, attacks and skill in one faction of one source; S, AP or D differ."""
    for key, members in _differing(rows, _faction_key, _stats):
        yield _found("weapon_profile_differs", "warning", key, members, f"in {members[0]['unit_faction']}", False)


def abilities_differ(rows: list[Row]) -> Iterator[Found]:
    """As `profile_differs` with S, AP and D equal too; only the abilities differ."""
    for key, members in _differing(rows, lambda r: (*_faction_key(r), *_stats(r)), lambda r: r["abilities_text"]):
        what = f"in {members[0]['unit_faction']} differing only in abilities"
        yield _found("weapon_abilities_differ", "info", key, members, what, True)


def _sheet_key(row: Row) -> tuple[Any, ...]:
    return (row["format"], name_key(row["sheet_name"]), row["legend"], row["words"], row["kind"])


def profile_in_datasheet(rows: list[Row]) -> Iterator[Found]:
    """Same weapon (name, kind) on one datasheet, or on the datasheets of one name a source lists under
    several factions, with another profile."""
    for key, members in _differing(rows, _sheet_key, lambda r: profile_text(r, abilities=True)):
        what = f"on {members[0]['sheet_name']}"
        yield _found("weapon_profile_in_datasheet", "warning", key, members, what, True)


def weapon_findings(frames: Mapping[str, pl.DataFrame]) -> Iterator[Found]:
    rows = weapon_rows(frames)
    yield from profile_differs(rows)
    yield from abilities_differ(rows)
    yield from profile_in_datasheet(rows)
