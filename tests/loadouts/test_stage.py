"""The loadouts stage and its report."""

from __future__ import annotations

from pipeline.dataset import Dataset
from pipeline.loadouts.report import loadout_report
from pipeline.loadouts.stage import loadouts_stage
from schemas.records import Datasheet, DatasheetLoadout, LoadoutIssue, Record, Source
from tests.loadouts.builders import facts, profile
from tests.loadouts.conftest import Loadouts


def _source(source_id: str, fmt: str) -> Source:
    return Source(source_id=source_id, format=fmt, path=source_id, sha256="0" * 64, rows_in=0, rows_curated=0,
                  rows_quarantined=0)  # fmt: skip


def test_stage_reads_text_sources_and_leaves_the_rest_alone() -> None:
    built = facts("Every model is equipped with: rifle.", ["5 Troopers"], [5], [profile("Trooper")], ["Rifle"])
    sheet = built.datasheet.model_copy(update={"source_id": "test"})
    parsed_by_bsdata = Datasheet(datasheet_id="bs:x", source_id="bs", faction="Test", name="Other")
    bs_weapon = built.weapons[0].model_copy(update={"weapon_id": "bs:w", "datasheet_id": "bs:x"})
    records: list[Record] = [
        _source("test", "wahapedia_csv"), _source("bs", "bsdata"), sheet, parsed_by_bsdata,
        *built.options, *built.profiles, *built.weapons, bs_weapon,
    ]  # fmt: skip
    staged = loadouts_stage(Dataset(records))
    rows = staged.dataset.records(DatasheetLoadout)
    assert [(r.datasheet_id, r.model_count, r.per_model) for r in rows] == [("test:sheet", 5, 1)]
    assert staged.dataset.records(Datasheet) == (sheet, parsed_by_bsdata)
    report = staged.report.as_dict()
    # the BSData datasheet has weapons and no loadout rows or issues from its parser: counted, resolved
    assert report["by_format"] == {
        "bsdata": {"datasheets": 1, "resolved": 1, "rate": 1.0},
        "wahapedia_csv": {"datasheets": 1, "resolved": 1, "rate": 1.0},
    }
    assert report["rows"] == 1


def test_report_counts_datasheets_once_per_reason() -> None:
    sheets = [Datasheet(datasheet_id=f"d{i}", source_id="s", faction=f, name="x") for i, f in enumerate("AAB")]
    issues = [
        LoadoutIssue(datasheet_id="d0", reason="r1", detail="a", severity="unresolved"),
        LoadoutIssue(datasheet_id="d0", reason="r1", detail="b", severity="unresolved"),
        LoadoutIssue(datasheet_id="d2", reason="r2", detail="c", severity="note"),
    ]
    report = loadout_report([(s, "wahapedia_csv") for s in sheets], [], issues, copies=0).as_dict()
    assert report["by_format"]["wahapedia_csv"] == {"datasheets": 3, "resolved": 2, "rate": 0.6667}
    assert report["by_faction"]["wahapedia_csv"]["A"] == {"datasheets": 2, "resolved": 1, "rate": 0.5}
    assert report["unresolved"] == {"wahapedia_csv": {"r1": 1}}


def test_real_report_per_faction_and_reason(text_loadouts: Loadouts) -> None:
    """Counts of the July 2025 export: 1604 datasheets with weapons (292 of them copies), 14 unresolved."""
    report = text_loadouts.report.as_dict()
    assert report["copies"] == 292
    assert report["unresolved"]["wahapedia_csv"] == {
        "item names no weapon": 6,
        "no loadout statement": 2,
        "no points option": 3,
        "option does not fit the composition": 3,
    }
    # Orks: Deffkilla Wartrike (`defkilla boomsticks`) and Squighog Boyz (`squig jaws`) name no weapon
    assert report["by_faction"]["wahapedia_csv"]["Orks"] == {"datasheets": 86, "resolved": 84, "rate": 0.9767}
