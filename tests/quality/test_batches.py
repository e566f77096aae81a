"""What GX is given: each table with its derived columns, absent tables as empty stand-ins."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline import config
from pipeline.frame_types import table_schema
from pipeline.quality.batches import Batch, existing_tables, fetch_batch, reading_cursor
from pipeline.quality.suites import load_suites
from pipeline.store.ddl import MODEL_BY_TABLE
from pipeline.store.load import open_store
from tests.quality.conftest import WARBOSS, WAZDAKKA, break_copy

SUITES = {s.table: s for s in load_suites()}


@pytest.fixture(scope="module")
def broken_con(good_release: Path, tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    release = break_copy(good_release / config.DUCKDB_FILENAME, tmp_path_factory.mktemp("broken_batches"))
    return duckdb.connect(str(release / config.DUCKDB_FILENAME), read_only=True)


def _batch(con: duckdb.DuckDBPyConnection, table: str) -> Batch:
    return fetch_batch(con, SUITES[table], existing_tables(con))


def test_orphan_column_holds_the_dangling_key(broken_con: duckdb.DuckDBPyConnection) -> None:
    frame = _batch(broken_con, "weapons").frame
    assert frame["orphan_datasheet_id"].dropna().tolist() == ["wh:000000999"]


def test_cross_table_flags(broken_con: duckdb.DuckDBPyConnection) -> None:
    datasheets = _batch(broken_con, "datasheets").frame.set_index("datasheet_id")
    assert datasheets["without_points"].dropna().tolist() == [WAZDAKKA]
    assert datasheets["without_model_profile"].isna().all()
    sources = _batch(broken_con, "sources").frame.set_index("source_id")
    assert sources.loc["wahapedia_csv:Datasheets.csv", "rows_unaccounted"] == 1
    assert sources.loc["page_export:000_2e2c183ddf21453e.txt", "quarantined_share"] == pytest.approx(1 / 40)


def test_torrent_flag_and_ability_text(broken_con: duckdb.DuckDBPyConnection) -> None:
    frame = _batch(broken_con, "weapons").frame.set_index("weapon_id")
    kombi = frame.loc[f"{WARBOSS}:ranged:kombi-weapon"]
    assert kombi["abilities_text"] == "anti-infantry 4+ | devastating wounds | rapid fire 1"
    assert not kombi["is_torrent"]


def test_absent_table_is_an_empty_stand_in_with_the_published_columns(
    broken_con: duckdb.DuckDBPyConnection,
) -> None:
    assert "stratagems" not in existing_tables(broken_con)
    batch = _batch(broken_con, "datasheet_stratagems")
    assert (batch.status, batch.rows, len(batch.frame)) == ("absent", 0, 0)
    expected = [
        *table_schema(MODEL_BY_TABLE["datasheet_stratagems"]),
        "orphan_datasheet_id",
        "orphan_stratagem_id",
    ]
    assert list(batch.frame.columns) == expected


def test_rows_come_in_key_order_so_samples_repeat(broken_con: duckdb.DuckDBPyConnection) -> None:
    batch = _batch(broken_con, "weapons")
    ids = batch.frame["weapon_id"].tolist()
    assert ids == sorted(ids)
    assert batch.key == ("weapon_id",)


def test_empty_table_status(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    con.execute(
        "CREATE TABLE rules (rule_id VARCHAR, title VARCHAR, body VARCHAR, content_hash VARCHAR, "
        "variant_of VARCHAR, kind VARCHAR, occurrences BIGINT)"
    )
    batch = _batch(con, "rules")
    assert (batch.status, batch.rows) == ("empty", 0)
    assert {"orphan_variant_of", "self_variant", "without_occurrence"} <= set(batch.frame.columns)


def test_columns_no_expectation_reads_come_as_null_under_their_name(broken_con: duckdb.DuckDBPyConnection) -> None:
    frame = _batch(broken_con, "weapons").frame.set_index("weapon_id")
    assert list(frame.reset_index().columns) == [
        *table_schema(MODEL_BY_TABLE["weapons"]),
        *SUITES["weapons"].derived_columns,
    ]
    kombi = frame.loc[f"{WARBOSS}:ranged:kombi-weapon"]
    assert kombi["abilities"] is pd.NA  # a list column only the column set names: never converted
    assert str(frame["abilities"].dtype) == "null[pyarrow]"  # Arrow's NULL type: no bytes per row
    assert kombi["abilities_text"] == "anti-infantry 4+ | devastating wounds | rapid fire 1"  # derived from it
    assert kombi["datasheet_id"] == WARBOSS


def test_a_reading_cursor_resolves_the_partitioned_views_as_its_connection_does(good_release: Path) -> None:
    with open_store(good_release / config.DUCKDB_FILENAME) as con:
        cursor = reading_cursor(con)
        assert cursor is not None
        setting = "SELECT current_setting('file_search_path'), current_setting('enable_progress_bar')"
        assert cursor.execute(setting).fetchall() == con.execute(setting).fetchall()
        assert cursor.execute(setting).fetchall()[0][0] != ""
        cursor.close()
        con.execute("SET lock_configuration = true")
        assert reading_cursor(con) is None  # a sandboxed reader: the summaries run on `con` itself
