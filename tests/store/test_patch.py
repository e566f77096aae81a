"""The previous release's DuckDB file patched: only changed tables and those referencing them are loaded again,
and the file holds what a file built whole holds."""

from __future__ import annotations

import warnings
from concurrent.futures import Future
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline import config
from pipeline.cache.entries import CacheWarning
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.run import run_pipeline
from pipeline.store.ddl import TABLE_MODELS
from pipeline.store.load import load_duckdb
from pipeline.store.parquet import write_parquet_tables
from pipeline.store.patch import DuckdbReuse, patch_duckdb, tables_to_load
from pipeline.store.stage import _load

NAMES = [model.TABLE for model in TABLE_MODELS]
#: The tables whose foreign keys reference `units` (ddl.FOREIGN_KEYS); none of them is referenced in turn.
UNITS_AND_CHILDREN = {"units", "unit_profiles", "unit_weapons", "unit_points", "damage_vs_reference", "findings",
                      "unit_loadouts", "unit_loadout_issues"}  # fmt: skip
WEAPONS_AND_CHILDREN = {"weapons", "weapon_abilities", "unit_weapons", "damage_vs_reference", "datasheet_loadouts",
                        "unit_loadouts"}  # fmt: skip


@pytest.fixture(scope="module")
def seed_frames(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    """The tables of a release of the seed pages, read back from its Parquet (the frames the store loaded)."""
    release = run_pipeline([config.RAW_PAGES_DIR], tmp_path_factory.mktemp("seeds") / "out").release
    return {t: pl.read_parquet(release / f"{t}.parquet") for t in NAMES if (release / f"{t}.parquet").is_file()}


def _hashes(frames: dict[str, pl.DataFrame], folder: Path) -> dict[str, str]:
    folder.mkdir()
    return write_parquet_tables(frames, folder)


def _catalog(db: Path) -> list[tuple[object, ...]]:
    """Tables' columns and types, constraints and views' SQL: what a reader of the file sees besides rows."""
    with duckdb.connect(str(db), read_only=True) as con:
        columns = con.execute(
            "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() WHERE NOT internal "
            "ORDER BY ALL"
        ).fetchall()
        constraints = con.execute(
            "SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints() ORDER BY ALL"
        ).fetchall()
        views = con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL").fetchall()
    return [*columns, *constraints, *views]


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (set(), set()),
        ({"sources"}, {"sources"}),
        ({"units"}, UNITS_AND_CHILDREN),
        ({"weapons"}, WEAPONS_AND_CHILDREN),
        ({"rules"}, {"rules", "rule_occurrences"}),
    ],
)
def test_a_changed_table_is_loaded_with_every_table_referencing_it(changed: set[str], expected: set[str]) -> None:
    base = {t: "a" for t in NAMES}
    loaded = tables_to_load(base, {t: "b" if t in changed else "a" for t in NAMES})
    assert set(loaded) == expected
    assert loaded == [t for t in NAMES if t in expected]  # parents first, as the file is built


def test_a_table_either_side_lacks_is_loaded() -> None:
    base = {t: "a" for t in NAMES if t != "quarantine"}
    assert tables_to_load(base, {t: "a" for t in NAMES}) == ["quarantine"]
    assert tables_to_load({t: "a" for t in NAMES}, base) == ["quarantine"]


def test_a_patched_file_holds_what_a_file_built_whole_holds(
    seed_frames: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    """A unit renamed: the patch loads `units` and its 7 children again; every table's rows, the columns, keys,
    foreign keys and views then equal those of a file built whole from the new frames."""
    units = seed_frames["units"]
    renamed = units.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("Renamed")).otherwise("name")
                                 .alias("name"))  # fmt: skip
    new = {**seed_frames, "units": renamed}
    load = tables_to_load(_hashes(seed_frames, tmp_path / "a"), _hashes(new, tmp_path / "b"))
    assert set(load) == UNITS_AND_CHILDREN
    before, patched, whole = tmp_path / "before.duckdb", tmp_path / "patched.duckdb", tmp_path / "whole.duckdb"
    load_duckdb(seed_frames, before)
    patch_duckdb(new, patched, before, load)
    load_duckdb(new, whole)
    hashes = duckdb_content_hashes(patched)
    assert hashes == duckdb_content_hashes(whole)
    old = duckdb_content_hashes(before)
    assert {t for t in hashes if hashes[t] != old[t]} == {"units"}
    assert _catalog(patched) == _catalog(whole)
    with duckdb.connect(str(patched), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM units WHERE name = 'Renamed'").fetchone() == (1,)


def test_the_previous_file_is_a_base_only_as_this_code_recorded_it(
    seed_frames: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    release = tmp_path / "v1"
    release.mkdir()
    db = release / config.DUCKDB_FILENAME
    load_duckdb(seed_frames, db)
    tables = {"units": "u", "weapons": "w"}
    assert DuckdbReuse.of(tmp_path / "cache", release).base() is None  # nothing recorded yet
    reuse = DuckdbReuse.of(tmp_path / "cache", release)
    reuse.remember(db, tables)
    base = reuse.base()
    assert base is not None and (base.path, dict(base.tables)) == (db, tables)
    assert DuckdbReuse.of(None, release).base() is None  # no cache
    assert DuckdbReuse.of(tmp_path / "cache", None).base() is None  # no previous release
    (key,) = reuse.cache.kept
    reuse.cache.set_meta(key, {"tables": ["units"]})
    with pytest.warns(CacheWarning, match="no table hashes"):
        assert reuse.base() is None
    reuse.cache.set_meta(key, {"tables": tables})
    with duckdb.connect(str(db)) as con:  # someone wrote to the published file since
        con.execute("CREATE TABLE notes (text VARCHAR)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reuse.base() is None


def test_a_previous_file_that_cannot_be_patched_is_built_whole_with_a_warning(
    seed_frames: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    """A record whose file is not a DuckDB file (hashes as recorded, opens as nothing): the copy fails to
    open, so every table is loaded into a new file instead, and the run says why."""
    release, out = tmp_path / "v1", tmp_path / "v2"
    release.mkdir()
    out.mkdir()
    (release / config.DUCKDB_FILENAME).write_bytes(b"not a database\n" * 100)
    reuse = DuckdbReuse.of(tmp_path / "cache", release)
    reuse.remember(release / config.DUCKDB_FILENAME, {t: "x" for t in NAMES})
    hashes: Future[dict[str, str]] = Future()
    hashes.set_result({t: "x" for t in NAMES if t != "units"})
    with pytest.warns(CacheWarning, match="not patched, loading every table"):
        loaded, patched = _load(seed_frames, out / config.DUCKDB_FILENAME, reuse, hashes)
    assert (loaded, patched) == (tuple(NAMES), False)
    with duckdb.connect(str(out / config.DUCKDB_FILENAME), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM units").fetchone() == (seed_frames["units"].height,)


def test_an_unreadable_previous_file_is_no_base(tmp_path: Path) -> None:
    (tmp_path / "v1" / config.DUCKDB_FILENAME).mkdir(parents=True)  # a folder where the file should be
    assert DuckdbReuse.of(tmp_path / "cache", tmp_path / "v1").base() is None
    assert DuckdbReuse.of(tmp_path / "cache", tmp_path / "v0").base() is None  # no file at all
