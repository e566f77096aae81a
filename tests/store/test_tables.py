"""Integrity before loading: duplicates and orphans go to quarantine, not into a crash."""

from __future__ import annotations

import copy
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline.dataset import Dataset
from pipeline.frame_types import table_schema
from pipeline.normalise.markup import strip_markup_columns
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.quality.suites import load_suites
from pipeline.reconcile.stage import reconcile_stage
from pipeline.store import build_frames, load_duckdb
from pipeline.store.ddl import FOREIGN_KEYS, GATE_CHECKED_KEYS, MODEL_BY_TABLE, create_table_sql
from pipeline.store.tables import _field_kind, _json_cell, _keeps_markup, records_frame
from schemas import Datasheet, ModelProfile, Source, Weapon
from schemas.records import Record, SourceConflict, WeaponAbilityRow


def _weapon(weapon_id: str, datasheet_id: str, line: int, damage: str = "1", abilities: str = "") -> Weapon:
    typed = parse_ability_list(abilities)
    return Weapon(
        weapon_id=weapon_id,
        datasheet_id=datasheet_id,
        name="Choppa",
        kind="melee",
        attacks="3",
        skill=3,
        strength=4,
        ap=-1,
        damage=damage,
        abilities=[a.normalised for a in typed],
        typed_abilities=typed,
        source_id="t:1",
        line=line,
    )


@pytest.fixture()
def dataset() -> Dataset:
    return Dataset(
        [
            Source(
                source_id="t:1",
                format="page_export",
                path="t",
                sha256="0" * 64,
                rows_in=6,
                rows_curated=6,
                rows_quarantined=0,
            ),
            Datasheet(datasheet_id="d1", source_id="t:1", faction="Orks", name="Boyz", line=1),
            ModelProfile(profile_id="p1", datasheet_id="d1", name="Boy", toughness=5, save=5, wounds=1),
            _weapon("w1", "d1", 2, abilities="sustained hits 1, anti-infantry 4+"),
            _weapon("w1", "d1", 3, abilities="sustained hits 1, anti-infantry 4+"),  # same content
            _weapon("w2", "d1", 4, damage="2"),
            _weapon("w2", "d1", 5, damage="D3"),  # same key, other content
            _weapon("w3", "missing", 6, abilities="lethal hits"),  # orphan
        ]
    )


def test_duplicates_collapse_or_quarantine_and_orphans_cascade(dataset: Dataset) -> None:
    frames = build_frames(dataset)
    assert frames["weapons"]["weapon_id"].to_list() == ["w1", "w2"]
    assert frames["weapons"].filter(weapon_id="w2")["damage"].item() == "2"
    reasons = sorted(zip(frames["quarantine"]["line"], frames["quarantine"]["reason"], strict=True))
    assert reasons == [
        (5, "duplicate key (weapon_id) with different content"),
        (6, "datasheet_id not found in datasheets"),
        (6, "weapon_id not found in weapons"),
    ]
    assert sorted(frames["weapon_abilities"]["ability"].to_list()) == ["anti", "sustained_hits"]
    source = frames["sources"].row(0, named=True)
    assert (source["rows_curated"], source["rows_quarantined"]) == (4, 2)


def test_integrity_leaves_its_dataset_as_it_was(dataset: Dataset) -> None:
    """`weapon_abilities` rows are derived from the weapons into the frames, not into the dataset."""
    parsed_row = WeaponAbilityRow(weapon_id="w2", ability="other", raw="waaagh!", source_id="t:1", line=4)
    given = dataset.adding([parsed_row])
    before = {name: (rows, copy.deepcopy(rows)) for name, rows in given.tables()}
    frames = build_frames(given)
    assert sorted(frames["weapon_abilities"]["ability"].to_list()) == ["anti", "other", "sustained_hits"]
    assert given.records(WeaponAbilityRow) == (parsed_row,)
    assert "quarantine" not in given.counts()  # the rows moved to quarantine went to the frame only
    for name, rows in given.tables():
        same, copied = before[name]
        assert rows is same and rows == copied, name


def test_loaded_duckdb_enforces_keys(dataset: Dataset, tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    load_duckdb(build_frames(reconcile_stage(dataset).dataset), db)
    con = duckdb.connect(str(db))
    assert con.execute("select count(*) from weapons").fetchone() == (2,)
    with pytest.raises(duckdb.ConstraintException):
        con.execute(
            "insert into weapons (weapon_id, datasheet_id, name, kind, attacks, strength, ap, damage,"
            " abilities) values ('w9', 'nope', 'x', 'melee', '1', 3, 0, '1', [])"
        )
    with pytest.raises(duckdb.ConstraintException):
        con.execute("insert into datasheets (datasheet_id, source_id, faction, name) values ('d1','t:1','O','B')")
    card = con.execute("select name, toughness, weapons from v_unit_cards").fetchone()
    # One card per unit; its golden weapons: w1 and the second Choppa profile w2 (damage 2).
    assert card == ("Boyz", 5, ["Choppa (melee)", "Choppa (melee)"])


def test_ddl_declares_keys_and_references() -> None:
    sql = create_table_sql(Weapon)
    assert "PRIMARY KEY (weapon_id)" in sql
    assert "FOREIGN KEY (datasheet_id) REFERENCES datasheets(datasheet_id)" in sql
    assert '"skill" BIGINT,' in sql and '"abilities" VARCHAR[] NOT NULL' in sql


def test_null_key_columns_and_provenance_keys_are_kept(tmp_path: Path) -> None:
    from schemas import Keyword, RuleOccurrence

    ds = Dataset(
        [
            Datasheet(datasheet_id="d1", source_id="t:1", faction="Orks", name="Boyz", line=1),
            Keyword(datasheet_id="d1", keyword="infantry", source_id="t:1", line=2),
            Keyword(datasheet_id="d1", keyword="orks", is_faction=True, source_id="t:1", line=3),
            RuleOccurrence(rule_id="r1", source_id="t:1", line=4),
            RuleOccurrence(rule_id="r1", source_id="t:1", line=9),
        ]
    )
    frames = build_frames(ds)
    assert frames["keywords"]["keyword"].to_list() == ["INFANTRY", "ORKS"]
    assert frames["rule_occurrences"].height == 0  # no rules table: orphans
    assert sorted(frames["quarantine"]["line"].to_list()) == [4, 9]


@pytest.mark.parametrize("table", sorted(GATE_CHECKED_KEYS))
def test_keys_duckdb_does_not_declare_are_critical_quality_gates(table: str) -> None:
    """No key in the DDL, so each is a critical gate: the key unique, each reference a derived column of the
    orphans that must be NULL."""
    model = MODEL_BY_TABLE[table]
    assert "KEY" not in create_table_sql(model)
    suite = {s.table: s for s in load_suites()}[table]
    critical = [e for e in suite.expectations if e.severity == "critical"]
    assert any(e.type.endswith("_to_be_unique") and e.kwargs["column_list"] == list(model.KEY) for e in critical)
    nulls = {e.kwargs["column"] for e in critical if e.type == "expect_column_values_to_be_null"}
    for (child, column), (parent, parent_column) in FOREIGN_KEYS.items():
        if child == table:
            orphans = [n for n in nulls if f"{parent} " in suite.derived_columns.get(n, "")]
            assert [n for n in orphans if f"= t.{column}" in suite.derived_columns[n]], (column, parent_column)


def test_the_orphan_weapon_gate_names_the_weapon_duckdb_let_in() -> None:
    """The derived column finds a `damage_vs_reference` weapon missing from `weapons` (the insert succeeds)."""
    con = duckdb.connect()
    for table in ("datasheets", "weapons", "damage_vs_reference"):
        con.execute(create_table_sql(MODEL_BY_TABLE[table]))
    con.execute("INSERT INTO datasheets (datasheet_id, source_id, faction, name) VALUES ('d1', 't:1', 'O', 'B')")
    con.execute(
        "INSERT INTO weapons (weapon_id, datasheet_id, name, kind, attacks, strength, ap, damage, abilities)"
        " VALUES ('w1', 'd1', 'Choppa', 'melee', '3', 4, -1, '1', [])"
    )
    cell = "'ref:meq', 'default', 1, 1, 1, 0, 1, 1, 1, 0, NULL, 0, 0, 'u1', 'd1', true, NULL, NULL"
    con.execute(f"INSERT INTO damage_vs_reference VALUES ('w1', {cell}), ('w9', {cell})")
    derived = {s.table: s for s in load_suites()}["damage_vs_reference"].derived_columns["unknown_weapon_id"]
    assert con.execute(f"SELECT {derived} AS o FROM damage_vs_reference t ORDER BY o").fetchall() == [("w9",), (None,)]


def _frame_from_row_dicts(model: type[Record], records: list[Record]) -> pl.DataFrame:
    """The frame as `records_frame` built it from one `row()` dict per record."""
    rows = [{k: _json_cell(v) for k, v in r.row().items()} for r in records]
    return strip_markup_columns(pl.DataFrame(rows, schema=table_schema(model), orient="row"), _keeps_markup(model))


@pytest.mark.parametrize(
    "records",
    [
        [
            SourceConflict(
                unit_id="u:a", field="toughness", values={"w:1": "<b>5</b>", "p:2": None}, chosen="5", reason="majority"
            ),
            SourceConflict(unit_id="u:b", field="name", values={}, chosen=None, reason="<i>only</i> one"),
        ],
        [_weapon("w:1", "d:1", 3, damage="D6+1", abilities="lethal hits, anti-infantry 4+"), _weapon("w:2", "d:1", 4)],
        [
            Datasheet(datasheet_id="d:1", name="<b>Boyz</b>", faction="Orks", source_id="t:1", line=1),
            Datasheet(datasheet_id="d:2", name="Nobz", faction="Orks", role="Battleline", source_id="t:1"),
        ],
    ],
    ids=["dict column", "row() adds columns", "plain"],
)
def test_records_frame_is_built_column_wise_as_from_row_dicts(records: list[Record]) -> None:
    """Attributes straight into columns give the frame `row()`'s dicts gave: dicts as JSON text without
    markup, dice as text, the means `Weapon.row()` adds, NULLs where a field is None."""
    model = type(records[0])
    frame = records_frame(model, records)
    assert frame.equals(_frame_from_row_dicts(model, records))
    assert frame.height == len(records)


def test_field_kinds() -> None:
    assert _field_kind(SourceConflict, "values") == "json"
    assert _field_kind(SourceConflict, "chosen") == "plain"
    assert _field_kind(Datasheet, "name") == "plain"
