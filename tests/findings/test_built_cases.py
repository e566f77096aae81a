"""Every findings category on a case built by hand: the smallest frames that show the defect, and the same
frames without it (no finding). Values asserted here are the ones written into the frames."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.findings import points, profiles, sources, typos, units, weapons
from pipeline.findings.found import Found, Locator, Place
from pipeline.findings.stage import first_seen, records
from pipeline.publish.previous import PreviousRelease
from pipeline.sources.report import FileReport, ParseReport
from schemas.findings import CATEGORIES

Frames = dict[str, pl.DataFrame]
BS = "bsdata:Faction.cat"
WH = "wahapedia_csv:Datasheets_wargear.csv"


def _sheets(*rows: tuple[str, str, str]) -> pl.DataFrame:
    """(datasheet_id, name, unit_id) rows."""
    return pl.DataFrame(
        [
            {"datasheet_id": d, "name": n, "unit_id": u, "source_id": BS, "line": 1, "transport": None}
            for d, n, u in rows
        ],
        schema_overrides={"transport": pl.String},
    )


def _units(*rows: tuple[str, str, str]) -> pl.DataFrame:
    """(unit_id, name, faction) rows, each with one datasheet `<unit_id>/ds`."""
    return pl.DataFrame(
        [
            {
                "unit_id": u,
                "name": n,
                "faction": f,
                "legend": False,
                "role": "Infantry",
                "sources": ["bsdata"],
                "datasheet_ids": [f"{u}/ds"],
            }
            for u, n, f in rows
        ]
    )


def _weapon(weapon_id: str, datasheet_id: str, name: str, **stats: Any) -> dict[str, Any]:
    row = {
        "weapon_id": weapon_id,
        "datasheet_id": datasheet_id,
        "name": name,
        "source_id": BS,
        "line": 10,
        "kind": "ranged",
        "range_inches": 12,
        "attacks": "1",
        "skill": 3,
        "strength": "4",
        "ap": 0,
        "damage": "1",
        "abilities": [],
    }
    return {**row, **stats}


def _weapon_frames(*rows: dict[str, Any]) -> Frames:
    return {
        "units": _units(
            ("unit:a:one", "One", "Alpha"), ("unit:a:two", "Two", "Alpha"), ("unit:b:three", "Three", "Beta")
        ),
        "datasheets": _sheets(
            ("bs:c:one", "One", "unit:a:one"),
            ("bs:c:two", "Two", "unit:a:two"),
            ("bs:c:three", "Three", "unit:b:three"),
        ),
        "weapons": pl.DataFrame(list(rows), schema_overrides={"abilities": pl.List(pl.String)}),
    }


def _categories(found: list[Found]) -> list[str]:
    return [f.category for f in found]


def test_weapon_profile_differs_in_one_faction() -> None:
    frames = _weapon_frames(
        _weapon("bs:c:one:w1", "bs:c:one", "Heavy flamer", ap=-1),
        _weapon("bs:c:two:w2", "bs:c:two", "Heavy flamer", ap=-2),
        _weapon("bs:c:three:w3", "bs:c:three", "Heavy flamer", ap=-3),  # another faction: not compared
    )
    (found,) = list(weapons.weapon_findings(frames))
    assert found.category == "weapon_profile_differs" and found.subject == "Heavy flamer"
    assert found.unit_ids == ("unit:a:one", "unit:a:two")
    assert sorted(str(v) for v in found.values.values()) == ['12" A1 BS3+ S4 AP-1 D1', '12" A1 BS3+ S4 AP-2 D1']
    assert {p.element for p in found.places} == {"w1", "w2"}


def test_weapon_abilities_differ_only() -> None:
    frames = _weapon_frames(
        _weapon("bs:c:one:w1", "bs:c:one", "Bolter", abilities=["Rapid Fire 1"]),
        _weapon("bs:c:two:w2", "bs:c:two", "Bolter"),
    )
    assert _categories(list(weapons.weapon_findings(frames))) == ["weapon_abilities_differ"]


def test_weapon_profile_in_one_datasheet() -> None:
    frames = _weapon_frames(
        _weapon("bs:c:one:w1", "bs:c:one", "Havoc launcher", skill=3),
        _weapon("bs:c:one:w2", "bs:c:one", "Havoc launcher", skill=4),
    )
    found = list(weapons.weapon_findings(frames))
    assert _categories(found) == ["weapon_profile_in_datasheet"]
    assert found[0].values == {
        "One (Alpha) - bs:c:one:w1": '12" A1 BS3+ S4 AP0 D1 [no abilities]',
        "One (Alpha) - bs:c:one:w2": '12" A1 BS4+ S4 AP0 D1 [no abilities]',
    }


def test_same_weapon_same_profile_is_no_finding() -> None:
    frames = _weapon_frames(_weapon("bs:c:one:w1", "bs:c:one", "Bolter"), _weapon("bs:c:two:w2", "bs:c:two", "Bolter"))
    assert list(weapons.weapon_findings(frames)) == []


def _points(*rows: tuple[int, int, str]) -> Frames:
    """(models, cost, description) options of datasheet `ds`."""
    return {
        "datasheets": _sheets(("ds", "Reavers", "unit:a:reavers")),
        "points": pl.DataFrame(
            [
                {"datasheet_id": "ds", "models": m, "cost": c, "description": d, "source_id": WH, "line": i + 2}
                for i, (m, c, d) in enumerate(rows)
            ]
        ),
    }


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (((3, 60, "3 models"), (6, 50, "6 models")), ["6 models"]),
        (((3, 60, "3 models"), (6, 120, "6 models")), []),
        (((3, 60, "3 models"), (3, 60, "3 models again"), (6, 120, "6 models")), []),
    ],
)
def test_points_fall(options: tuple[tuple[int, int, str], ...], expected: list[str]) -> None:
    found = list(points.points_fall(_points(*options)))
    assert [f.subject for f in found] == expected
    if found:
        assert found[0].values == {"3 models (3 models)": 60, "6 models (6 models)": 50}
        assert found[0].places == (Place(WH, 3), Place(WH, 2))


def _report(*findings: dict[str, Any], source_id: str = WH) -> ParseReport:
    report = ParseReport()
    report.add(FileReport(source_id, "wahapedia_csv", 3, 2, 1, findings=tuple(findings)))
    return report


def test_points_size_twice() -> None:
    kept = {"datasheet_id": "ds", "models": 3, "cost": 60, "description": "3 models"}
    noted = {
        "kind": "duplicate key",
        "table": "points",
        "line": 5,
        "kept_line": 4,
        "raw": "ds|1|3 models|75|",
        "kept": [kept],
        "dropped": [{**kept, "cost": 75}],
    }
    (found,) = points.points_size_twice(_points((3, 60, "3 models")), _report(noted))
    assert found.category == "points_size_twice" and found.unit_ids == ("unit:a:reavers",)
    assert found.values == {"line 4 (kept)": 60, "line 5": 75}
    assert list(points.points_size_twice(_points((3, 60, "3 models")), _report())) == []


def test_invuln_in_one_source_only() -> None:
    frames = {
        "units": _units(("unit:a:one", "One", "Alpha")),
        "unit_profiles": pl.DataFrame([{"unit_id": "unit:a:one", "profile_name": "One", "profile_ids": ["p1", "p2"]}]),
        "model_profiles": pl.DataFrame(
            [
                {"profile_id": "p1", "datasheet_id": "d1", "toughness": 4, "invuln": 4, "source_id": WH, "line": 3},
                {"profile_id": "p2", "datasheet_id": "d2", "toughness": 4, "invuln": None, "source_id": BS, "line": 9},
            ],
            schema_overrides={"invuln": pl.Int64},
        ),
    }
    (found,) = profiles.invuln_one_source(frames)
    assert found.values == {"p1": "4+", "p2": None} and found.places == (Place(BS, 9),)
    frames["model_profiles"] = frames["model_profiles"].with_columns(pl.lit(4).alias("invuln"))
    assert list(profiles.invuln_one_source(frames)) == []


def test_characteristic_read_loosely() -> None:
    frames = _weapon_frames(_weapon("bs:c:one:w1", "bs:c:one", "Missile", strength="8"))
    noted = {
        "kind": "read loosely",
        "line": 10,
        "table": "weapons",
        "field": "S",
        "raw": "8+",
        "read_as": "8",
        "where": "profile 'Missile' of unit 'One'",
    }
    (found,) = typos.loose_values(frames, _report(noted, source_id=BS))
    assert found.category == "characteristic_typo" and found.subject == "Missile"
    assert found.values == {"field": "S", "written": "8+", "read_as": "8"} and found.unit_ids == ("unit:a:one",)


@pytest.mark.parametrize(
    ("raw", "canonical"), [("Anti-fly 2", "anti-fly 2+"), ("Anti Vehicle 3+", "anti-vehicle 3+"), ("Lethal Hits", None)]
)
def test_weapon_ability_misspelt(raw: str, canonical: str | None) -> None:
    frames = _weapon_frames(_weapon("bs:c:one:w1", "bs:c:one", "Lance"))
    frames["weapon_abilities"] = pl.DataFrame(
        [{"weapon_id": "bs:c:one:w1", "ability": "anti", "raw": raw, "source_id": BS, "line": 10}]
    )
    found = list(typos.misspelt_abilities(frames))
    assert [f.values["read_as"] for f in found] == ([canonical] if canonical else [])


def test_unit_without_weapons() -> None:
    frames = {
        "units": _units(
            ("unit:a:one", "One", "Alpha"), ("unit:a:wall", "Wall", "Alpha"), ("unit:a:armed", "Armed", "Alpha")
        ),
        "datasheets": _sheets(
            ("unit:a:one/ds", "One", "unit:a:one"),
            ("unit:a:wall/ds", "Wall", "unit:a:wall"),
            ("unit:a:armed/ds", "Armed", "unit:a:armed"),
        ),
        "keywords": pl.DataFrame([{"datasheet_id": "unit:a:wall/ds", "keyword": "FORTIFICATION"}]),
        "unit_weapons": pl.DataFrame([{"unit_id": "unit:a:armed"}]),
    }
    assert [f.subject for f in units.units_without_weapons(frames)] == ["One"]


def test_source_conflict() -> None:
    frames = {
        "units": _units(("unit:a:one", "One", "Alpha")),
        "datasheets": pl.DataFrame(
            [
                {"unit_id": "unit:a:one", "source_id": s, "line": 4, "datasheet_id": d}
                for s, d in ((BS, "d1"), (WH, "d2"))
            ]
        ),
        "source_conflicts": pl.DataFrame(
            [
                {
                    "unit_id": "unit:a:one",
                    "field": "toughness",
                    "chosen": "6",
                    "chosen_source": WH,
                    "values": '{"bsdata:Faction.cat": 5, "' + WH + '": 6}',
                }
            ]
        ),
    }
    (found,) = sources.conflicts(frames)
    assert found.values == {BS: 5, WH: 6} and found.subject == "toughness"
    assert found.places == (Place(BS, 4), Place(WH, 4))


def test_self_check_shortfall() -> None:
    checks = pl.DataFrame(
        [
            {
                "source_id": BS,
                "check_name": "weapons",
                "expected": 10,
                "published": 7,
                "explained": 2,
                "unexplained": 1,
                "reasons": '{"explained: hidden": 2, "unexplained: no profile": 1}',
            },
            {
                "source_id": BS,
                "check_name": "points",
                "expected": 3,
                "published": 3,
                "explained": 0,
                "unexplained": 0,
                "reasons": "{}",
            },
        ]
    )
    (found,) = sources.check_shortfalls({"source_checks": checks})
    assert found.subject == "weapons" and found.values["unexplained: no profile"] == 1


def test_ids_are_stable_and_first_seen_carries_over(tmp_path: Path) -> None:
    frames = _weapon_frames(
        _weapon("bs:c:one:w1", "bs:c:one", "Havoc launcher", skill=3, line=10),
        _weapon("bs:c:one:w2", "bs:c:one", "Havoc launcher", skill=4, line=11),
    )
    locator = Locator(pl.DataFrame({"source_id": [BS], "path": ["Faction.cat"]}))
    (first,) = records(weapons.weapon_findings(frames), locator, {}, "v000000000001")
    assert first.location == "Faction.cat:10 (id w1); Faction.cat:11 (id w2)"
    moved = frames | {"weapons": frames["weapons"].with_columns(pl.col("line") + 5)}
    folder = tmp_path / "v000000000001"
    folder.mkdir()
    pl.DataFrame([first.model_dump()]).drop("values").write_parquet(folder / "findings.parquet")
    seen = first_seen(PreviousRelease(folder, "v000000000001"))
    (again,) = records(weapons.weapon_findings(moved), locator, seen, "v000000000002")
    assert again.finding_id == first.finding_id and again.first_seen_version == "v000000000001"
    assert again.location == "Faction.cat:15 (id w1); Faction.cat:16 (id w2)"


def test_every_category_is_built_here() -> None:
    """A new category must get a built case in this module."""
    text = Path(__file__).read_text()
    built = {c for c in CATEGORIES if f'"{c}"' in text or f"{c.removeprefix('weapon_')}" in text}
    assert built == set(CATEGORIES)
