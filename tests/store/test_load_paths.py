"""The damage matrix attaches in any release folder: paths are bound, never pasted into SQL."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.damage import write_damage_parquet
from pipeline.publish.query import run_query
from pipeline.store import load_duckdb
from pipeline.store.load import DAMAGE_TABLE_MAX_ROWS, attach_damage_matrix
from tests.damage.builders import run, target, weapon

#: Folder names that broke SQL pasted from paths, or that DuckDB's file_search_path cannot hold.
FOLDER_NAMES = {
    "apostrophe": "T'au Empire",
    "injection": "x'; COPY (SELECT 42) TO '{root}/PWNED.csv'; SELECT '",
    "comma": "Orks, Goffs",
    "glob": "Orks [2024] *",  # not "?" nor "\\": DuckDB itself cannot open a file under those
}
MODES = {"table": 0, "view": DAMAGE_TABLE_MAX_ROWS + 1}


def _release(folder: Path) -> Path:
    """Empty tables and the views, a two-cell matrix (one weapon, one target, two scenarios), a manifest."""
    folder.mkdir(parents=True)
    write_damage_parquet(run([weapon()], [target()], scenarios=("default", "cover")), folder)
    load_duckdb({}, folder / config.DUCKDB_FILENAME)
    (folder / "manifest.json").write_text(json.dumps({}))
    return folder


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FOLDER_NAMES)
def test_the_damage_matrix_attaches_in_any_folder(name: str, mode: str, tmp_path: Path) -> None:
    folder = _release(tmp_path / FOLDER_NAMES[name].format(root=tmp_path) / "v1")
    before = _files(tmp_path)
    assert attach_damage_matrix(folder / config.DUCKDB_FILENAME, MODES[mode]) == mode
    assert _files(tmp_path) == before  # nothing written but the DuckDB file: no PWNED.csv, no alias left
    assert not (tmp_path / "PWNED.csv").exists()
    counts = run_query("SELECT scenario, count(*) AS cells FROM damage_matrix GROUP BY ALL ORDER BY 1", folder)
    assert counts == (["scenario", "cells"], [("cover", 1), ("default", 1)])
    kinds = run_query("SELECT table_type FROM information_schema.tables WHERE table_name = 'damage_matrix' "
                      "AND table_catalog = current_database()", folder)[1]  # fmt: skip
    assert kinds == [("BASE TABLE" if mode == "table" else "VIEW",)]


@pytest.mark.parametrize("name", ["apostrophe", "injection"])
def test_a_view_resolves_for_any_duckdb_client_with_the_bound_search_path(name: str, tmp_path: Path) -> None:
    folder = _release(tmp_path / FOLDER_NAMES[name].format(root=tmp_path) / "v1")
    attach_damage_matrix(folder / config.DUCKDB_FILENAME, MODES["view"])
    con = duckdb.connect(str(folder / config.DUCKDB_FILENAME), read_only=True)
    try:
        con.execute("SET file_search_path = ?", [str(folder)])
        assert con.execute("SELECT count(*) FROM damage_matrix").fetchall() == [(2,)]
    finally:
        con.close()
