"""The matrix's cache keys: a file's key moves with the engine inputs of its rows and nothing else, and a cached
file is placed only while its bytes are those recorded, giving the release a cold run gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.damage import SCENARIOS, matrix_files, prepare_damage, scenario_files
from pipeline.damage.unit_results import UNIT_GRID_KIND
from tests.damage.test_matrix import frames

Frames = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]


def _when(frame: pl.DataFrame, key: str, value: str, column: str, new: object) -> pl.DataFrame:
    return frame.with_columns(pl.when(pl.col(key) == value).then(pl.lit(new)).otherwise(column).alias(column))


def _stronger_plasma(f: Frames) -> Frames:
    return _when(f[0], "weapon_id", "plasma", "strength", "9"), *f[1:]


def _no_gatler_sustained_hits(f: Frames) -> Frames:
    return f[0], f[1].filter(~((pl.col("weapon_id") == "gatler") & (pl.col("ability") == "sustained_hits"))), *f[2:]


def _tougher_trukk(f: Frames) -> Frames:
    return f[0], f[1], _when(f[2], "profile_id", "trukk", "toughness", 9), f[3]


def _stealthy_boy(f: Frames) -> Frames:
    return f[0], f[1], f[2].with_columns((pl.col("profile_id") == "boy").alias("stealth")), f[3]


def _dearer(f: Frames) -> Frames:
    return *f[:3], f[3].with_columns(pl.col("cost") + 1)


def _line_numbers(f: Frames) -> Frames:  # where a row sat in its file: no engine input
    return f[0].with_columns(pl.lit(7).alias("line")), f[1], f[2].with_columns(pl.lit(3).alias("line")), f[3]


@pytest.mark.parametrize(
    ("change", "moves"),
    [(_stronger_plasma, True), (_no_gatler_sustained_hits, True), (_tougher_trukk, True), (_stealthy_boy, True),
     (_dearer, True), (_line_numbers, False)],
)  # fmt: skip
def test_the_digest_moves_with_an_engine_input(change: Callable[[Frames], Frames], moves: bool) -> None:
    before = prepare_damage(*frames()).digest
    assert (prepare_damage(*change(frames())).digest != before) is moves


def _plasma_apart(f: Frames) -> Frames:
    """The plasma gun on a datasheet of its own (one model, 20 points): its points move its rows alone."""
    weapons = f[0].with_columns(
        pl.when(pl.col("weapon_id") == "plasma").then(pl.lit("ds2")).otherwise("datasheet_id").alias("datasheet_id")
    )
    points = pl.concat([f[3], pl.DataFrame({"datasheet_id": ["ds2"], "models": [1], "cost": [20]}, schema=f[3].schema)])
    return weapons, f[1], f[2], points


def _dearer_plasma(f: Frames) -> Frames:
    return *f[:3], _when(f[3], "datasheet_id", "ds2", "cost", 25)


@pytest.mark.parametrize(
    ("change", "targets_move", "rows_moved"),
    [(_stronger_plasma, False, {"plasma"}), (_no_gatler_sustained_hits, False, {"gatler"}),
     (_tougher_trukk, True, set()), (_stealthy_boy, True, set()), (_line_numbers, False, set()),
     (_dearer_plasma, False, {"plasma"})],
)  # fmt: skip
def test_a_weapon_change_moves_its_rows_digest_only(
    change: Callable[[Frames], Frames], targets_move: bool, rows_moved: set[str]
) -> None:
    before, after = prepare_damage(*_plasma_apart(frames())), prepare_damage(*change(_plasma_apart(frames())))
    assert before.digest is not None and after.digest is not None
    assert (after.digest.targets != before.digest.targets) is targets_move
    rows = dict(zip(before.weapons["weapon_id"], before.digest.weapon_rows, strict=True))
    moved = {w for w, row in zip(after.weapons["weapon_id"], after.digest.weapon_rows, strict=True) if rows[w] != row}
    assert moved == rows_moved


def _bytes(root: Path) -> dict[str, bytes]:
    return {f"{s}/{p.name}": p.read_bytes() for s in SCENARIOS for p in scenario_files(root, s)}


def test_an_unchanged_matrix_is_placed_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three files a scenario (weapons choppa flamer mortar | bolter bolter-copy plasma | gatler): placed again
    whole when nothing changed; when the plasma gun's points change, its file alone is written again."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 3)
    cache = tmp_path / "cache"
    first = prepare_damage(*_plasma_apart(frames())).write_parquet(
        tmp_path / "first", cache=PartCache(cache, "damage_matrix")
    )
    assert [w.from_cache for w in first] == [False] * 3 * len(SCENARIOS)
    again = prepare_damage(*_plasma_apart(frames())).write_parquet(
        tmp_path / "again", cache=PartCache(cache, "damage_matrix")
    )
    assert [w.from_cache for w in again] == [True] * 3 * len(SCENARIOS)
    assert [w.file for w in again] == [w.file for w in first]  # the hashes recorded as written
    changed = prepare_damage(*_dearer_plasma(_plasma_apart(frames())))
    written = changed.write_parquet(tmp_path / "changed", cache=PartCache(cache, "damage_matrix"))
    assert {w.path.name for w in written if not w.from_cache} == {"part-00001.parquet"}
    assert sum(not w.from_cache for w in written) == len(SCENARIOS)
    changed.write_parquet(tmp_path / "cold")
    assert _bytes(tmp_path / "changed") == _bytes(tmp_path / "cold")
    stronger = prepare_damage(*_stronger_plasma(frames()))
    stronger.write_parquet(tmp_path / "stronger", cache=PartCache(cache, "damage_matrix"))
    stronger.write_parquet(tmp_path / "stronger-cold")
    assert _bytes(tmp_path / "stronger") == _bytes(tmp_path / "stronger-cold")


def test_a_cached_file_changed_in_place_is_written_again(tmp_path: Path) -> None:
    """The engine skipped every row (the cache had every file's entry); the file that fails its check when placed
    has its rows computed then."""
    cache = tmp_path / "cache"
    prepare_damage(*frames()).write_parquet(tmp_path / "first", cache=PartCache(cache, "damage_matrix"))
    published = scenario_files(tmp_path / "first", "cover")[0]
    with published.open("r+b") as handle:  # the release's file is the cache's (a hard link)
        handle.write(b"XXXX")
    again = prepare_damage(*frames(), cache=PartCache(cache, "damage_matrix"))
    assert again.fill is not None and not again.fill.whole.any()
    with pytest.warns(CacheWarning, match="missing or changed"):
        written = again.write_parquet(tmp_path / "again", cache=PartCache(cache, "damage_matrix"))
    assert [w.scenario for w in written if not w.from_cache] == ["cover"]
    assert again.fill.whole.sum() == len(set(again.effective_keys["cover"].tolist()))
    prepare_damage(*frames()).write_parquet(tmp_path / "cold")
    assert _bytes(tmp_path / "again") == _bytes(tmp_path / "cold")


REFERENCES = ["ref:meq", "ref:knight"]


def test_the_engine_computes_the_rows_of_the_files_the_cache_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plasma gun's points changed, three weapons a file: the engine computes the 6 effective rows (of 12) that
    file 1 reads in the five scenarios (bolter, its copy and the plasma gun) and every row against the reference
    profiles' 2 target keys; the rest of the blocks is never computed, and the files, the slice against the
    references and every computed value are those of a computation of every row."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 3)
    cache = PartCache(tmp_path / "cache", "damage_matrix")
    assert prepare_damage(*_plasma_apart(frames()), cache=cache).fill is None  # nothing cached: every row
    prepare_damage(*_plasma_apart(frames())).write_parquet(tmp_path / "first", cache=cache)
    inputs = _dearer_plasma(_plasma_apart(frames()))
    part, whole = prepare_damage(*inputs, cache=cache, references=REFERENCES), prepare_damage(*inputs)
    fill = part.fill
    assert fill is not None
    file_1 = {int(k) for rows in part.effective_keys.values() for k in rows[3:6]}
    assert (len(fill.whole), set(np.flatnonzero(fill.whole).tolist())) == (12, file_1)
    assert len(file_1) == 6
    reference = part.reference
    assert reference is not None
    assert reference.columns.tolist() == sorted(set(part.target_keys[part.targets["profile_id"].is_in(REFERENCES)]))
    assert len(reference.columns) == 2
    for name, block in whole.blocks.items():
        assert np.array_equal(part.blocks[name][fill.whole], block[fill.whole], equal_nan=True)
        assert np.array_equal(reference.values[name], block[:, reference.columns], equal_nan=True)
    for scenario in SCENARIOS:
        assert part.matrix(scenario, REFERENCES).equals(whole.matrix(scenario, REFERENCES))
    assert fill.whole.sum() == 6  # the references' slice needed no other row
    written = part.write_parquet(tmp_path / "part", cache=cache)
    assert sum(not w.from_cache for w in written) == len(SCENARIOS)
    assert fill.whole.sum() == 6
    whole.write_parquet(tmp_path / "whole")
    assert _bytes(tmp_path / "part") == _bytes(tmp_path / "whole")


def _grid(f: Frames, cache: PartCache) -> tuple[dict[str, bytes], object]:
    computation = prepare_damage(*f, unit_cache=cache)
    unit = computation.unit
    arrays = {name: values.tobytes() for name, values in unit.values.items()}
    return {**arrays, "part_of": unit.part_of.tobytes(), "unit_of": unit.unit_of.tobytes()}, computation.report


@pytest.mark.parametrize(
    ("change", "read_back"),
    [(_dearer, True), (_line_numbers, True), (_stronger_plasma, False), (_tougher_trukk, False),
     (_no_gatler_sustained_hits, False)],
)  # fmt: skip
def test_the_unit_grid_is_read_back_when_its_inputs_are_unchanged(
    tmp_path: Path, change: Callable[[Frames], Frames], read_back: bool
) -> None:
    """No points enter the models slain and wounds lost a weapon's attacks give: a points change reads the grid
    back (the same arrays and report as computing it); a stat, a toughness or an ability computes it again."""
    first = PartCache(tmp_path, UNIT_GRID_KIND)
    _grid(frames(), first)
    assert len(first.kept) == 1
    again = PartCache(tmp_path, UNIT_GRID_KIND)
    grid, report = _grid(change(frames()), again)
    assert (again.used - again.kept, again.kept == set()) == ((first.kept, True) if read_back else (set(), False))
    assert (grid, report) == _grid(change(frames()), PartCache(None, UNIT_GRID_KIND))


@pytest.mark.parametrize("damage", ["bytes", "meta"])
def test_a_cached_unit_grid_that_does_not_fit_is_not_trusted(tmp_path: Path, damage: str) -> None:
    """A grid file whose bytes changed (its hash no longer the entry's), or whose recorded rows are not the run's,
    is ignored with a warning and the grid computed again."""
    first = PartCache(tmp_path, UNIT_GRID_KIND)
    expected = _grid(frames(), first)
    (key,) = first.kept
    if damage == "bytes":
        blob = next((tmp_path / "parts" / UNIT_GRID_KIND).glob("*.bin"))
        data = bytearray(blob.read_bytes())
        data[0] ^= 1
        blob.write_bytes(bytes(data))
    else:
        meta = first.meta(key)
        assert meta is not None
        first.set_meta(key, {**meta, "effective_rows": meta["effective_rows"] + 1})
    again = PartCache(tmp_path, UNIT_GRID_KIND)
    with pytest.warns(CacheWarning, match="ignored, recomputing"):
        assert _grid(frames(), again) == expected
    assert again.kept == {key}
