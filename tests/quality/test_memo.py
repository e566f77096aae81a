"""Quality outcomes reused from the cache when the files of every relation a suite reads hash as before, or when
the rows GX would validate are the ones it validated before: the report is the one a validation writes, byte for
byte, and a changed table checks again exactly the suites that read it, with GX where it sees other rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline import config
from pipeline.cache.entries import CacheWarning
from pipeline.quality import batches, stage
from pipeline.quality.batches import Rows
from pipeline.quality.memo import BATCH_KIND, MEMO_KIND, QualityMemo, read_relations
from pipeline.quality.report import QUALITY_DIRNAME
from pipeline.quality.stage import quality_gate
from pipeline.quality.suites import load_suites
from pipeline.store import store_stage
from tests.seed_frames import Frames, SeedStages, renamed_weapon, seed_stages

#: The suites whose table is `weapons` or whose SQL reads it (read in `expectations/`: `datasheets` counts
#: datasheets without weapons, `sources` BSData sources without any, `damage_matrix.sql` joins it).
READ_WEAPONS = {
    "damage_matrix", "damage_vs_reference", "datasheet_loadouts", "datasheets", "sources", "unit_weapons",
    "weapon_abilities", "weapons",
}  # fmt: skip


@pytest.fixture(scope="module")
def built() -> SeedStages:
    return seed_stages()


def _stored(built: SeedStages, frames: Frames, release: Path) -> dict[str, str]:
    release.mkdir(parents=True)
    stored = store_stage(frames, built.damage, release)
    return {**stored.matrix_hashes, **stored.table_hashes}


def _gate(release: Path, cache: Path | None, known: dict[str, str]) -> QualityMemo:
    memo = QualityMemo.of(cache, release, known)
    quality_gate(release, memo=memo)
    return memo


def _report(release: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((release / QUALITY_DIRNAME).iterdir())}


def test_a_release_checked_again_reads_every_outcome_back(built: SeedStages, tmp_path: Path) -> None:
    cache, release = tmp_path / "cache", tmp_path / "release"
    known = _stored(built, built.frames, release)
    first = _gate(release, cache, known)
    suites = first.suites[0]
    assert suites == len(load_suites(config.EXPECTATIONS_DIR)) and first.suites[1] == 0
    written = _report(release)
    shutil.rmtree(release / QUALITY_DIRNAME)
    again = _gate(release, cache, known)
    assert again.suites == (0, suites)
    assert _report(release) == written  # summary.json and the page, byte for byte


def test_a_changed_table_checks_again_the_suites_that_read_it(built: SeedStages, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _gate(tmp_path / "first", cache, _stored(built, built.frames, tmp_path / "first"))
    changed = renamed_weapon(built.frames)
    known = _stored(built, changed, tmp_path / "changed")
    memo = _gate(tmp_path / "changed", cache, known)
    assert {key for key in memo.cache.kept} == {memo.key(s) for s in load_suites() if s.table in READ_WEAPONS}
    # of those, GX validates the suites whose rows it sees changed: a weapon's name is read by `weapons` only,
    # and the matrix summary is checked afresh; the other six see the same rows and read their outcomes back
    assert memo.validated == {"damage_matrix", "weapons"}
    assert memo.suites == (2, len(load_suites()) - 2)
    _stored(built, changed, tmp_path / "cold")
    _gate(tmp_path / "cold", None, {})
    assert _report(tmp_path / "changed") == _report(tmp_path / "cold")


def test_an_outcome_changed_in_the_cache_is_not_trusted(built: SeedStages, tmp_path: Path) -> None:
    cache, release = tmp_path / "cache", tmp_path / "release"
    known = _stored(built, built.frames, release)
    _gate(release, cache, known)
    written = _report(release)
    blob = sorted((cache / "parts" / MEMO_KIND).rglob("*.bin"))[0]
    blob.write_bytes(blob.read_bytes().replace(b'"success": true', b'"success": false'))
    with pytest.warns(CacheWarning, match="missing or changed"):
        again = _gate(release, cache, known)
    assert again.suites[0] <= 1  # its rows' outcomes are read back instead (or, for a summary, validated)
    assert _report(release) == written
    for blob in [*(cache / "parts" / MEMO_KIND).rglob("*.bin"), *(cache / "parts" / BATCH_KIND).rglob("*.bin")]:
        blob.write_bytes(blob.read_bytes().replace(b'"success": true', b'"success": false'))
    with pytest.warns(CacheWarning, match="missing or changed"):
        third = _gate(release, cache, known)
    assert third.suites == (len(load_suites()), 0)  # every outcome edited: every suite validated again
    assert _report(release) == written


@pytest.mark.parametrize(
    ("table", "relations"),
    [
        ("datasheets", {"datasheets", "sources", "model_profiles", "points", "keywords", "weapons"}),
        ("unit_loadouts", {"unit_loadouts", "unit_weapons", "unit_profiles", "unit_points"}),
        ("unit_vs_reference", {"unit_vs_reference"}),  # its derived columns read its own rows only
        ("unit_matchups", {"unit_matchups"}),
    ],
)
def test_the_relations_a_suite_reads(table: str, relations: set[str]) -> None:
    suite = next(s for s in load_suites() if s.table == table)
    assert read_relations(suite) == relations


def test_a_suite_reading_a_view_is_not_memoised(tmp_path: Path) -> None:
    suite = next(s for s in load_suites() if s.table == "units")
    viewing = type(suite)(suite.table, suite.description, {"x": "(SELECT count(*) FROM v_unit_summary)"}, ())
    assert read_relations(viewing) is None
    memo = QualityMemo.of(tmp_path / "cache", tmp_path, {})
    assert memo.key(viewing) is None and memo.key(suite) is not None


def test_rows_in_another_order_are_recognised_without_sorting_them(built: SeedStages, tmp_path: Path) -> None:
    """The rows GX would see are recognised in any order (the by-rows key sorts their hashes, not the rows): a
    table stored in reverse reads its outcomes back, key-ordered rows are never fetched for it, and the report
    is the cold run's."""
    cache = tmp_path / "cache"
    _gate(tmp_path / "first", cache, _stored(built, built.frames, tmp_path / "first"))
    reversed_ = {**built.frames, "weapons": built.frames["weapons"].reverse()}
    known = _stored(built, reversed_, tmp_path / "reversed")
    assert known["weapons.parquet"] != _stored(built, built.frames, tmp_path / "again")["weapons.parquet"]
    fetched: list[Rows] = []
    original = batches.fetch_rows

    def kept(*args: object) -> Rows:
        rows = original(*args)  # type: ignore[arg-type]
        fetched.append(rows)
        return rows

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stage, "fetch_rows", kept)
        memo = _gate(tmp_path / "reversed", cache, known)
    weapons = [rows for rows in fetched if rows.table == "weapons"]
    assert "weapons" not in memo.validated and "weapons" in memo.reused
    assert len(weapons) == 1 and "arrow" not in vars(weapons[0])  # recognised unordered, never sorted
    _stored(built, reversed_, tmp_path / "cold")
    _gate(tmp_path / "cold", None, {})
    assert _report(tmp_path / "reversed") == _report(tmp_path / "cold")
