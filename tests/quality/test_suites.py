"""The suite files: one per published table, well-formed, in step with the contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.frame_types import table_schema
from pipeline.quality.batches import summary_query
from pipeline.quality.suites import (
    ExpectationSpec,
    SuiteFormatError,
    SuiteSpec,
    list_expectations,
    load_suite,
    load_suites,
)
from pipeline.store.ddl import MODEL_BY_TABLE, TABLE_MODELS
from schemas.dice import DICE_PATTERN, parse_dice

SUITES = load_suites()
BY_TABLE = {s.table: s for s in SUITES}
ROW_SUITES = [s for s in SUITES if s.summary_sql is None]
SUMMARY_SUITES = [s for s in SUITES if s.summary_sql is not None]


def _summary_columns(suite: SuiteSpec) -> list[str]:
    """The summary's columns, from running its query on empty stand-ins of every table."""
    con = duckdb.connect()
    try:
        return list(con.sql(summary_query(suite, present=set())).columns)
    finally:
        con.close()


def test_one_suite_per_published_table() -> None:
    partitioned = {"damage_matrix", "unit_matchups"}
    assert set(BY_TABLE) == {m.TABLE for m in TABLE_MODELS} | partitioned == set(MODEL_BY_TABLE)


def test_the_partitioned_tables_are_checked_on_a_summary() -> None:
    assert [s.table for s in SUMMARY_SUITES] == ["damage_matrix", "unit_matchups"]
    assert BY_TABLE["damage_matrix"].summary_key == ("scenario",)
    assert BY_TABLE["unit_matchups"].summary_key == ("scenario", "phase")


@pytest.mark.parametrize("suite", SUMMARY_SUITES, ids=lambda s: s.table)
def test_summary_columns_are_the_key_and_what_the_expectations_read(suite: SuiteSpec) -> None:
    read = {e.kwargs["column"] for e in suite.expectations}
    assert set(_summary_columns(suite)) == read | set(suite.summary_key) | {"cells"}


@pytest.mark.parametrize("suite", SUMMARY_SUITES, ids=lambda s: s.table)
def test_summary_query_reads_every_contract_column(suite: SuiteSpec) -> None:
    """A summary suite cannot check the column set on the summary: its query names every contract column."""
    sql = suite.summary_sql or ""
    provenance = {"source_id", "line"}
    for column in set(table_schema(MODEL_BY_TABLE[suite.table])) - provenance:
        assert re.search(rf"\bm\.{column}\b", sql), column


@pytest.mark.parametrize("suite", ROW_SUITES, ids=lambda s: s.table)
def test_contract_columns_exist_in_the_table_schema(suite: SuiteSpec) -> None:
    published = set(table_schema(MODEL_BY_TABLE[suite.table]))
    column_sets = [e.kwargs["column_set"] for e in suite.expectations if "column_set" in e.kwargs]
    assert len(column_sets) == 1
    assert set(column_sets[0]) <= published


@pytest.mark.parametrize("suite", ROW_SUITES, ids=lambda s: s.table)
def test_expectations_read_published_or_derived_columns(suite: SuiteSpec) -> None:
    known = set(table_schema(MODEL_BY_TABLE[suite.table])) | set(suite.derived_columns)
    for expectation in suite.expectations:
        columns = [expectation.kwargs.get("column"), *expectation.kwargs.get("column_list", [])]
        condition = json.dumps(expectation.kwargs.get("row_condition", {}))
        columns += re.findall(r'"name": "([a-z_]+)"', condition)
        assert {c for c in columns if c} <= known, expectation.label


@pytest.mark.parametrize("suite", SUITES, ids=lambda s: s.table)
def test_every_derived_column_is_checked(suite: SuiteSpec) -> None:
    read = json.dumps([e.kwargs for e in suite.expectations])
    for name in suite.derived_columns:
        assert f'"{name}"' in read, name


def test_primary_keys_are_checked_for_uniqueness() -> None:
    # Quarantine is a log: one input line may leave two fragments with the same reason. The damage
    # matrix and unit_matchups are cross joins of unique ids (see expectations/README.md): not re-counted.
    for table, suite in BY_TABLE.items():
        if table in ("quarantine", "damage_matrix", "unit_matchups"):
            continue
        key = MODEL_BY_TABLE[table].KEY
        checks = [
            e
            for e in suite.expectations
            if (e.kwargs.get("column_list") or [e.kwargs.get("column")]) == list(key)
            and "unique" in e.type
            and e.severity == "critical"
        ]
        assert key == () or checks, table


def _dice_regex() -> str:
    patterns: set[str] = {
        e.kwargs["regex"]
        for s in SUITES
        for e in s.expectations
        if e.kwargs.get("column") in {"attacks", "strength", "damage"} and "regex" in e.kwargs
    }
    assert len(patterns) == 1
    return patterns.pop()


def test_dice_regex_is_the_schema_pattern_without_capture_groups() -> None:
    # Capture groups make pandas warn on every regex check; the language is the same.
    assert _dice_regex() == DICE_PATTERN.replace("(", "(?:")


@pytest.mark.parametrize("text", ["1", "12", "D3", "D6", "2D6", "D6+1", "3D3+3", "D7", "0", "D6+0", "d6", "6+", ""])
def test_dice_regex_agrees_with_the_schema(text: str) -> None:
    canonical = re.fullmatch(DICE_PATTERN, text) is not None
    assert (re.search(_dice_regex(), text) is not None) == canonical
    if canonical:
        assert parse_dice(text).text == text


def test_list_expectations_names_every_expectation_with_its_severity() -> None:
    listed = list_expectations()
    assert len(listed) == sum(len(s.expectations) for s in SUITES)
    assert ("weapons", "expect_column_values_to_be_between(ap in [-6, 0])", "critical") in listed
    assert (
        "model_profiles",
        "expect_column_values_to_be_between(toughness in [1, 20])",
        "critical",
    ) in listed
    assert ("weapons", "expect_column_values_to_be_null(orphan_datasheet_id)", "critical") in listed
    assert ("datasheets", "expect_column_values_to_be_null(without_model_profile)", "warning") in listed
    assert {severity for _, _, severity in listed} == {"critical", "warning"}


def test_suite_files_are_gx_suite_documents() -> None:
    for path in sorted(config.EXPECTATIONS_DIR.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        assert set(raw) == {"name", "meta", "expectations"}
        assert all(set(e) == {"type", "kwargs", "meta"} for e in raw["expectations"])


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (
            {
                "name": "x",
                "meta": {"table": "x"},
                "expectations": [{"type": "expect_column_values_to_be_unique", "kwargs": {"column": "a"}, "meta": {}}],
            },
            "severity",
        ),
        ({"name": "y", "meta": {"table": "y"}, "expectations": []}, "file name"),
        (
            {
                "name": "x",
                "meta": {"table": "x"},
                "expectations": [
                    {
                        "type": "expect_column_values_to_be_unique",
                        "kwargs": {"column": "a"},
                        "meta": {"severity": "warning"},
                    },
                    {
                        "type": "expect_column_values_to_be_unique",
                        "kwargs": {"column": "a"},
                        "meta": {"severity": "critical"},
                    },
                ],
            },
            "same label",
        ),
        (
            {
                "name": "x",
                "meta": {"table": "x"},
                "expectations": [{"type": "unique", "meta": {"severity": "warning"}}],
            },
            "valid type",
        ),
        ({"name": "x", "meta": {"table": "x", "summary": "x.sql"}, "expectations": []}, "meta.summary must be"),
        (
            {"name": "x", "meta": {"table": "x", "summary": {"sql": "gone.sql", "key": ["k"]}}, "expectations": []},
            "cannot read summary query",
        ),
    ],
)
def test_malformed_suites_are_refused_with_their_file(tmp_path: Path, document: dict, problem: str) -> None:  # type: ignore[type-arg]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SuiteFormatError, match=problem) as caught:
        load_suite(path)
    assert caught.value.path == str(path)


def test_read_columns_are_the_checked_columns_and_the_condition_columns() -> None:
    weapons = BY_TABLE["weapons"]
    read = weapons.read_columns()
    assert read is not None
    assert {"skill", "is_torrent", "abilities_text", "weapon_id"} <= read  # is_torrent: a row condition only
    assert not {"abilities", "typed_abilities", "source_id"} & read  # named by the column set only
    both = {
        "type": "and",
        "conditions": [
            {"type": "comparison", "column": {"name": "kind"}, "operator": "==", "parameter": "melee"},
            {"type": "nullity", "column": {"name": "range_inches"}, "is_null": False},
        ],
    }
    spec = ExpectationSpec("expect_column_values_to_be_null", {"column": "skill", "row_condition": both}, "warning", "")
    assert spec.read_columns() == {"skill", "kind", "range_inches"}


def test_a_kwarg_we_do_not_know_reads_every_column() -> None:
    unknown = ExpectationSpec(
        "expect_column_pair_values_to_be_equal", {"column_A": "a", "ignore_row_if": "x"}, "warning", ""
    )
    suite = SuiteSpec("t", "", {}, (unknown,))
    assert unknown.read_columns() is None and suite.read_columns() is None
    text_condition = ExpectationSpec(
        "expect_column_values_to_be_null", {"column": "a", "row_condition": "b > 1"}, "warning", ""
    )
    assert text_condition.read_columns() is None
