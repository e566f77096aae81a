"""The accounting every parser shares: reason text, quarantine rows, the per-file ledger, the reports.

The validation cases are the values of real broken rows in tests/fixtures (file and line noted),
validated by the real record models.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.sources.accounting import (
    MAX_MESSAGE,
    MAX_RAW,
    STAGE,
    AccountingError,
    RowLedger,
    clip,
    invalid_reason,
    quarantine_row,
    record_table,
)
from pipeline.sources.report import FileReport, ParseReport
from schemas.records import Datasheet, Keyword, ModelProfile, QuarantineRow, RuleBlock, Weapon

PAGE_WEAPON = dict(
    weapon_id="page:x:ranged:bad-boltgun", datasheet_id="page:x", source_id="page_export:broken_weapons.txt",
    line=7, name="Bad boltgun", kind="ranged", range_inches=24, attacks="2", skill=3, strength=4, damage="1",
)  # fmt: skip


def _error(factory: Callable[[], Any]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        factory()
    return caught.value


def _page_weapon_ap_plus_one() -> Any:  # pages/broken_weapons.txt line 7: AP `+1`
    return Weapon(**PAGE_WEAPON, ap="+1")


def _wahapedia_zero_toughness() -> Any:  # wahapedia/broken/Datasheets_models.csv line 5: T `0`
    return ModelProfile(
        profile_id="wh:000000002:3", datasheet_id="wh:000000002", name="Zero Toughness", toughness=0,
        source_id="wahapedia_csv:Datasheets_models.csv", line=5,
    )  # fmt: skip


def _bsdata_star_strength() -> Any:  # bsdata/army/Test Army.cat line 242: Broken gun, S `*`
    return Weapon(**{**PAGE_WEAPON, "name": "Broken gun", "strength": "*", "ap": "0"})


@pytest.mark.parametrize(
    ("table", "factory", "where", "reason"),
    [
        ("weapons", _page_weapon_ap_plus_one, "", "weapons: ap: Input should be less than or equal to 0"),
        (
            "model_profiles",
            _wahapedia_zero_toughness,
            "",
            "model_profiles: toughness: Input should be greater than or equal to 1",
        ),
        (
            "weapons",
            _bsdata_star_strength,
            "profile 'Broken gun' of unit 'Test Squad'",
            "weapons: strength: Value error, not a dice expression: '*' (profile 'Broken gun' of unit 'Test Squad')",
        ),
    ],
    ids=["page", "wahapedia", "bsdata"],
)
def test_a_validation_error_reads_table_field_message_for_every_source(
    table: str, factory: Callable[[], Any], where: str, reason: str
) -> None:
    assert invalid_reason(table, _error(factory), where) == reason


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ValueError("duplicate key"), "keywords: duplicate key"),  # Datasheets_keywords.csv line 4
        (ValueError(""), "keywords: ValueError"),
        (ValueError("x" * (MAX_MESSAGE + 50)), "keywords: " + "x" * MAX_MESSAGE),
    ],
)
def test_any_other_value_error_reads_table_message(error: ValueError, reason: str) -> None:
    assert invalid_reason("keywords", error) == reason


def test_a_model_level_error_names_the_row() -> None:
    error = ValidationError.from_exception_data("Datasheet", [{"type": "missing", "loc": (), "input": {}}])
    assert invalid_reason("datasheets", error) == "datasheets: row: Field required"


def test_the_table_of_a_validation_error_is_its_model_s() -> None:
    empty_name = _error(lambda: Datasheet(datasheet_id="bs:c:e", source_id="bsdata:x.cat", faction="Orks", name=""))
    assert record_table(empty_name, "units") == "datasheets"
    assert record_table(_error(_wahapedia_zero_toughness), "units") == "model_profiles"
    assert record_table(_error(lambda: RuleBlock(title="", body="b", kind="rule")), "x") == "rule_blocks"
    assert record_table(ValueError("not a whole number: '*'"), "datasheets") == "datasheets"


@pytest.mark.parametrize(
    ("text", "limit", "clipped"),
    [
        ("<profile/>", MAX_RAW, "<profile/>"),
        ("a" * MAX_RAW, MAX_RAW, "a" * MAX_RAW),
        ("a" * (MAX_RAW + 1), MAX_RAW, "a" * MAX_RAW + "..."),
        ("<selectionEntry " + "b" * 600, 500, "<selectionEntry " + "b" * 484 + "..."),
    ],
)
def test_clip_cuts_long_raw_text_once(text: str, limit: int, clipped: str) -> None:
    assert clip(text, limit) == clipped
    assert clip(clip(text, limit)) == clip(text, limit)  # the row builder may clip an excerpt again


def test_the_quarantine_row_builder_sets_the_stage_and_caps_raw_text() -> None:
    row = quarantine_row("wahapedia_csv:Datasheets.csv", 4, "csv: wrong field count", "x|" * 1500, "Datasheets.csv")
    assert (row.stage, row.line, row.table) == (STAGE, 4, "Datasheets.csv") == ("parse", 4, "Datasheets.csv")
    assert len(row.raw) == MAX_RAW + 3 and row.raw.endswith("...")


def _keyword(line: int) -> Keyword:
    return Keyword(datasheet_id="wh:1", keyword="INFANTRY", is_faction=False, source_id="wahapedia_csv:k", line=line)


def test_the_ledger_counts_every_row_once_and_tallies_what_it_gave() -> None:
    ledger = RowLedger("wahapedia_csv:Datasheets_keywords.csv", "wahapedia_csv", rows_in=4)
    ledger.curate([_keyword(2)])
    ledger.curate([_keyword(3)])
    rejected = ledger.quarantine(4, "keywords: duplicate key", "1|INFANTRY||false|", "Datasheets_keywords.csv")
    ledger.quarantined(quarantine_row(ledger.source_id, 5, "keywords: empty keyword", "1|||false|", "k"))
    assert isinstance(rejected, QuarantineRow) and rejected.source_id == ledger.source_id
    source = ledger.source("Datasheets_keywords.csv", "0" * 64, "2025-07-09")
    assert (source.rows_in, source.rows_curated, source.rows_quarantined) == (4, 2, 2)
    assert (source.format, source.source_date) == ("wahapedia_csv", "2025-07-09")
    report = ledger.report({"extra": 1}, ["a note"])
    assert report == FileReport(
        source_id="wahapedia_csv:Datasheets_keywords.csv", format="wahapedia_csv",
        rows_in=4, rows_curated=2, rows_quarantined=2, records={"keywords": 2},
        quarantine={"keywords: duplicate key": 1, "keywords: empty keyword": 1},
        counts={"extra": 1}, notes=("a note",),
    )  # fmt: skip


def test_an_unbalanced_ledger_is_a_parser_bug_not_a_source_row() -> None:
    ledger = RowLedger("page_export:x.txt", "page_export", rows_in=3)
    ledger.curate()
    with pytest.raises(AccountingError, match="rows do not add up: 3 in, 1 curated, 0 quarantined"):
        ledger.source("x.txt", "0" * 64)
    ledger.tally([_keyword(1), _keyword(2)])  # records alone count no row
    assert (ledger.rows_curated, ledger.records["keywords"]) == (1, 2)


def test_the_parse_report_totals_per_format_and_is_json() -> None:
    report = ParseReport()
    report.add(FileReport("page_export:a.txt", "page_export", 10, 9, 1, notes=("n",)))
    report.add(FileReport("page_export:b.txt", "page_export", 5, 5, 0, records={"weapons": 3}))
    report.add(
        FileReport("wahapedia_csv:Enhancements.csv", "wahapedia_csv", 0, 0, 0, quarantine={"csv: file missing": 1})
    )
    as_dict = report.as_dict()
    assert as_dict["totals"] == {
        "page_export": {"files": 2, "rows_curated": 14, "rows_in": 15, "rows_quarantined": 1},
        "wahapedia_csv": {"files": 1, "rows_curated": 0, "rows_in": 0, "rows_quarantined": 0},
    }
    assert [f["source_id"] for f in as_dict["files"]] == ["page_export:a.txt", "page_export:b.txt",
                                                           "wahapedia_csv:Enhancements.csv"]  # fmt: skip
    assert as_dict["files"][1]["records"] == {"weapons": 3} and as_dict["files"][0]["notes"] == ["n"]
    assert json.loads(json.dumps(as_dict)) == as_dict
