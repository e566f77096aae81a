"""Precedence: how a datasheet's date is known, and the freshest value winning with a reason."""

from __future__ import annotations

from pipeline.reconcile.precedence import Dating, Offer, choose, choose_paired, date_of, precedence_key
from tests.reconcile.builders import sheet

CONFIG = {"bsdata": "2026-06-01", "wahapedia_csv": "2025-07-09", "page_export": None}


def test_date_order_file_config_then_datasheet_then_source_then_format() -> None:
    wh = sheet("wahapedia_csv", "Orks", "Boyz", date="2024-09-17")
    bare = sheet("wahapedia_csv", "Orks", "Gretchin")
    source_dates = {"wahapedia_csv:Datasheets.csv": "2025-07-09"}
    assert date_of(wh, source_dates, CONFIG) == Dating("2024-09-17", "datasheet errata date")
    assert date_of(bare, source_dates, CONFIG) == Dating("2025-07-09", "source file date")
    assert date_of(bare, {}, CONFIG) == Dating("2025-07-09", "configured for wahapedia_csv")
    overridden = {**CONFIG, "wahapedia_csv:Datasheets.csv": "2027-01-01"}
    assert date_of(wh, source_dates, overridden).date == "2027-01-01"


def test_page_export_date_unknown_unless_configured() -> None:
    page = sheet("page_export", "Orks", "Boyz")
    assert date_of(page, {}, CONFIG) == Dating(None, "unknown")
    assert date_of(page, {}, {**CONFIG, "page_export": "2023-06-01"}).date == "2023-06-01"


def test_precedence_key_freshest_first_unknown_last_ties_by_id() -> None:
    keys = {
        "old": precedence_key(Dating("2024-01-01", "x"), "a"),
        "new": precedence_key(Dating("2026-06-01", "x"), "z"),
        "unknown": precedence_key(Dating(None, "unknown"), "0"),
        "new_b": precedence_key(Dating("2026-06-01", "x"), "b"),
    }
    assert sorted(keys, key=keys.__getitem__) == ["new_b", "new", "old", "unknown"]


BS = Dating("2026-06-01", "configured for bsdata")
WH = Dating("2025-07-09", "datasheet errata date")
PAGE = Dating(None, "unknown")


def test_freshest_value_wins_and_conflict_lists_every_source() -> None:
    choice = choose([Offer("bs", BS, "110", "b"), Offer("wh", WH, "110", "w"), Offer("page", PAGE, "140", "p")])
    assert (choice.value, choice.source, choice.conflict) == ("110", "bs", True)
    assert choice.values == {"bs": "110", "wh": "110", "page": "140"}
    assert choice.reason == "freshest source (2026-06-01 (configured for bsdata)); disagreeing: page (date unknown)"


def test_missing_value_is_no_opinion() -> None:
    choice = choose([Offer("page", PAGE, None, "p"), Offer("wh", WH, "6", "w")])
    assert (choice.value, choice.source, choice.conflict, choice.reason) == (
        "6",
        "wh",
        False,
        "only source with a value",
    )
    agreeing = choose([Offer("bs", BS, "6", "b"), Offer("wh", WH, "6", "w")])
    assert (agreeing.conflict, agreeing.reason) == (False, "2 sources agree")
    assert choose([Offer("page", PAGE, None, "p")]).source is None


def test_two_datasheets_of_one_source_keep_both_values() -> None:
    choice = choose([Offer("wh", WH, "75", "wh:1"), Offer("wh", Dating("2025-03-12", "x"), "65", "wh:2")])
    assert choice.values == {"wh": "75", "wh (wh:2)": "65"}


def test_paired_field_comes_from_the_lead_fields_datasheet() -> None:
    lead = choose([Offer("page", PAGE, "4+", "p"), Offer("bs", BS, None, "b"), Offer("wh", WH, "5+", "w")])
    condition = choose_paired(lead, "invuln", [Offer("wh", WH, "ranged", "w"), Offer("page", PAGE, "any", "p")])
    assert lead.source == "wh"
    assert (condition.value, condition.source, condition.conflict) == ("ranged", "wh", True)
    assert condition.reason.startswith("goes with invuln: ")
