"""The matchups stage's part cache on whole stages and runs: a warm stage and a warm run after a change to one
catalogue publish the bytes of cold ones (a module of its own: the slowest tests run beside the others)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import config
from pipeline.matchups.incremental import MATCHUPS_KIND, PLAN_KIND
from pipeline.matchups.stage import matchups_stage, plan_matchups
from pipeline.run import run_pipeline
from tests.matchups.test_fork_executor import _frames
from tests.matchups.test_incremental import CATALOGUES, MAX_PAIRS, _digests
from tests.publish.releases import invoke


def _edited(bsdata_dir: Path, folder: Path) -> list[Path]:
    """A copy of the BSData folder (the catalogues' libraries resolve beside them) with World Eaters' first
    Toughness one higher; the catalogues' paths in it."""
    shutil.copytree(bsdata_dir, folder)
    path = folder / "Chaos - World Eaters.cat"
    text, found = re.subn(
        r'(<characteristic name="T" [^>]*>)(\d+)', lambda m: f"{m[1]}{int(m[2]) + 1}", path.read_text("utf-8"), count=1
    )
    assert found == 1
    path.write_text(text, encoding="utf-8")
    return [folder / name for name in CATALOGUES]


def _dearer(folder: Path) -> None:
    """Khorne Berzerkers' first points modifier (10 models: 360) 5 points dearer, in the copied folder."""
    path = folder / "Chaos - World Eaters.cat"
    head, unit, tail = path.read_text("utf-8").partition('name="Khorne Berzerkers" hidden="false" collective="false"'
                                                         ' import="true" type="unit">')  # fmt: skip
    tail, found = re.subn(r'(field="51b2-306e-1021-d207" value=")360"', r'\g<1>365"', tail, count=1)
    assert unit and found == 1
    path.write_text(head + unit + tail, encoding="utf-8")


def _parquet_bytes(frame: pl.DataFrame) -> bytes:
    sink = io.BytesIO()
    frame.write_parquet(sink, statistics=False)
    return sink.getvalue()


def test_the_stage_with_a_warm_cache_publishes_the_cold_bytes(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "MATCHUP_MAX_PAIRS", MAX_PAIRS)
    monkeypatch.setattr(config, "MATCHUP_REFERENCE_SCENARIOS", ("default", "cover"))
    before = _frames([config.RAW_PAGES_DIR, *(bsdata_dir / c for c in CATALOGUES)])
    after = _frames([config.RAW_PAGES_DIR, *_edited(bsdata_dir, tmp_path / "edited")])
    cache = tmp_path / "cache"
    first = matchups_stage(before, tmp_path / "first", cache=cache)
    assert first.cache.matchup_files_reused == first.cache.vs_reference_pieces_reused == 0
    assert first.prune() == 0
    warm = matchups_stage(after, tmp_path / "warm", cache=cache)
    cold = matchups_stage(after, tmp_path / "cold")
    assert _digests(tmp_path / "warm") == _digests(tmp_path / "cold") != _digests(tmp_path / "first")
    assert _parquet_bytes(warm.vs_reference) == _parquet_bytes(cold.vs_reference)
    assert warm.report == cold.report  # what the manifest publishes
    files = warm.cache.matchup_files_reused + warm.cache.matchup_files_computed
    assert files == cold.cache.matchup_files_computed == len(warm.written) == warm.report.partitions
    assert 0 < warm.cache.matchup_files_computed < files / 2
    # unit_vs_reference reads no Toughness of its attackers (test_vs_reference_pieces_warm_equal_cold: a weapon)
    assert (warm.cache.vs_reference_pieces_reused, warm.cache.vs_reference_pieces_computed) == (5, 0)
    # the first run's versions of those parts, and their bases (the others' bases are kept for a change of
    # costs), and the first run's plans (a Toughness is read by the plan)
    plans = len(list((cache / "parts" / PLAN_KIND).glob("*.json")))
    assert warm.prune() == 2 * warm.cache.matchup_files_computed + plans // 2 and plans % 2 == 0
    assert warm.cache.matchup_files_recosted == 0  # a Toughness change is no change of costs
    again = matchups_stage(after, tmp_path / "again", cache=cache)
    assert again.cache.matchup_files_computed == again.cache.vs_reference_pieces_computed == again.prune() == 0
    assert _digests(tmp_path / "again") == _digests(tmp_path / "cold")


def _points_changed(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, pl.DataFrame], dict[str, pl.DataFrame]]:
    """The frames before and after `_dearer` (one reference scenario, so the stage stays quick)."""
    monkeypatch.setattr(config, "MATCHUP_REFERENCE_SCENARIOS", ("default",))
    folder = tmp_path / "edited"
    shutil.copytree(bsdata_dir, folder)
    _dearer(folder)
    before = _frames([config.RAW_PAGES_DIR, *(bsdata_dir / c for c in CATALOGUES)])
    return before, _frames([config.RAW_PAGES_DIR, *(folder / c for c in CATALOGUES)])


def test_a_points_change_in_a_catalogue_recosts_files_and_computes_none(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maintainer's usual refresh: a unit's points. Its files are re-costed from the cache's bases, none is
    computed, and the bytes are a cold run's."""
    monkeypatch.setattr(config, "MATCHUP_MAX_PAIRS", MAX_PAIRS)
    before, after = _points_changed(bsdata_dir, tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    matchups_stage(before, tmp_path / "first", cache=cache)
    warm = matchups_stage(after, tmp_path / "warm", cache=cache)
    cold = matchups_stage(after, tmp_path / "cold")
    assert _digests(tmp_path / "warm") == _digests(tmp_path / "cold") != _digests(tmp_path / "first")
    assert _parquet_bytes(warm.vs_reference) == _parquet_bytes(cold.vs_reference)
    assert warm.cache.matchup_files_computed == 0 < warm.cache.matchup_files_recosted
    # every file's sha256 as the cache took it (publishing does not read them again); none without a cache
    assert warm.file_hashes == _digests(tmp_path / "warm") and cold.file_hashes == {}
    assert warm.cache.matchup_files_recosted + warm.cache.matchup_files_reused == len(warm.written)
    # the reference units cost nothing (their points columns are null): no piece reads a cost
    assert (warm.cache.vs_reference_pieces_reused, warm.cache.vs_reference_pieces_computed) == (5, 0)


def test_the_plan_says_the_stage_computes_only_when_a_piece_or_the_unit_table_is_missing(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run loads the compiled loops before the stage only when the plan says it computes: not after a points
    change (no `unit_vs_reference` piece reads a cost), but with no cache, with the unit x unit table asked for,
    or after a weapon changed; and the stage then computes what the plan said."""
    before, after = _points_changed(bsdata_dir, tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    assert plan_matchups(before, (), cache).computes  # nothing cached yet
    matchups_stage(before, tmp_path / "first", scenarios=(), cache=cache)
    plan = plan_matchups(after, (), cache)
    assert not plan.computes and len(plan.vs_reference_keys) == 5
    assert plan_matchups(after, (), None).computes and plan_matchups(after, ("default",), cache).computes
    first_attacks = pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("D6+1")).otherwise(pl.col("attacks"))
    weapons = after["unit_weapons"].with_columns(first_attacks.alias("attacks"))
    assert after["unit_weapons"]["attacks"][0] != "D6+1"
    assert plan_matchups({**after, "unit_weapons": weapons}, (), cache).computes
    warm = matchups_stage(after, tmp_path / "warm", scenarios=(), cache=cache, plan=plan)
    assert (warm.cache.vs_reference_pieces_reused, warm.cache.vs_reference_pieces_computed) == (5, 0)


def test_with_the_unit_table_the_plan_knows_the_files_and_computes_none_after_a_points_change(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the unit x unit table the plan reads each file's content before the stage (while the damage stage
    works): a points change leaves every file placed or re-costed, so the plan computes nothing and the stage
    computes what the plan said, from the plan's contents."""
    monkeypatch.setattr(config, "MATCHUP_MAX_PAIRS", MAX_PAIRS)
    before, after = _points_changed(bsdata_dir, tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    first = plan_matchups(before, ("default",), cache)
    assert first.computes and first.contents  # nothing cached yet
    matchups_stage(before, tmp_path / "first", cache=cache, plan=first)
    plan = plan_matchups(after, ("default",), cache)
    assert not plan.computes and plan.contents is not None and plan.plans is not None
    assert plan.contents.keys() == first.contents.keys() and plan.contents != first.contents
    warm = matchups_stage(after, tmp_path / "warm", cache=cache, plan=plan)
    assert warm.cache.matchup_files_computed == 0 < warm.cache.matchup_files_recosted
    assert plan.plans.used  # the plans the contents were read with are the stage's, kept by its prune
    assert (
        plan_matchups(after, ("default",), None).computes and plan_matchups(after, ("default",), None).contents is None
    )


@pytest.mark.slow  # three whole runs
def test_a_run_with_a_warm_cache_publishes_the_cold_release_bytes(
    bsdata_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "MATCHUP_MAX_PAIRS", MAX_PAIRS)
    original = [config.RAW_PAGES_DIR, *(bsdata_dir / c for c in CATALOGUES)]
    edited = [config.RAW_PAGES_DIR, *_edited(bsdata_dir, tmp_path / "edited")]
    _dearer(tmp_path / "edited")  # a Toughness and a unit's points: files computed and files re-costed
    run_pipeline(original, tmp_path / "out")
    shutil.copytree(tmp_path / "out", tmp_path / "cold", symlinks=True)  # the same history (findings, changes)
    shutil.rmtree(tmp_path / "cold" / config.CACHE_DIRNAME)
    said = invoke("run", *(a for path in edited for a in ("--input", path)), "--out", tmp_path / "out")
    assert said.exit_code == 0, said.output
    counts = re.search(r"unit_matchups: (\d+) partitions computed, (\d+) re-costed, (\d+) from the cache", said.stderr)
    assert counts is not None and all(int(n) > 0 for n in counts.groups()), said.stderr
    warm = run_pipeline(edited, tmp_path / "out")  # the same inputs again: the release the command published
    assert warm.reused
    monkeypatch.setenv("DATASLATE_CACHE", "off")
    cold = run_pipeline(edited, tmp_path / "cold")
    assert warm.version == cold.version
    assert _digests(warm.release) == _digests(cold.release)  # every Parquet file: tables, matrix, unit_matchups
    assert (warm.release / "manifest.json").read_bytes() == (cold.release / "manifest.json").read_bytes()
    parts = tmp_path / "out" / config.CACHE_DIRNAME / "parts"
    kept = {p.stem for p in (parts / MATCHUPS_KIND).glob("*.json")}
    assert len(kept) == len(list((warm.release / "unit_matchups").rglob("*.parquet")))  # pruned to this run's
