"""The forked pool the stage runs partitions on (`pipeline/matchups/fork_executor.py`), and what makes its
files deterministic: a partition's bytes do not depend on which process computed it or what that process's
engines computed before (docs/units.md#partitions)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import polars as pl
import pytest

from pipeline import config
from pipeline.damage.reference import reference_stage
from pipeline.dedupe.stage import dedupe_stage
from pipeline.loadouts.stage import loadouts_stage
from pipeline.matchups import partition
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.loadout_stage import unit_loadouts_stage
from pipeline.matchups.partition import InProcessExecutor, MatchupInputs, write_partitions
from pipeline.matchups.sides import UnitOption
from pipeline.matchups.stage import matchup_options
from pipeline.reconcile.stage import reconcile_stage
from pipeline.sources.registry import read_inputs
from pipeline.store import build_frames

CATALOGUE = "Chaos - Chaos Knights.cat"


def _frames(inputs: list[Path]) -> dict[str, pl.DataFrame]:
    dataset = read_inputs(inputs).dataset
    dataset = reconcile_stage(loadouts_stage(dedupe_stage(dataset).dataset).dataset).dataset
    return build_frames(reference_stage(unit_loadouts_stage(dataset).dataset).dataset)


@pytest.fixture(scope="module")
def options(bsdata_dir: Path) -> list[UnitOption]:
    return list(matchup_options(_frames([config.RAW_PAGES_DIR, bsdata_dir / CATALOGUE])))


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.parquet")}


def test_partitions_do_not_depend_on_the_process_or_its_history(
    options: list[UnitOption], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = MatchupInputs(options, workers=1)  # one file per faction
    keys = whole.keys(["default", "cover"])
    monkeypatch.setattr(partition, "_ENGINES", {})
    fresh = write_partitions(whole, keys, tmp_path / "fresh")
    # the same engines after small chunks of the same units (the case that used to change the last bits)
    monkeypatch.setattr(partition, "_ENGINES", {})
    small = MatchupInputs(options, workers=1, max_pairs=100)
    write_partitions(small, small.keys(["default", "cover"])[::-1], tmp_path / "small")
    write_partitions(whole, keys[::-1], tmp_path / "after")
    forked = write_partitions(whole, keys, tmp_path / "forked", ForkExecutor(2))
    assert len(keys) == 8 and sum(w.rows for w in fresh) == sum(w.rows for w in forked) > 0
    assert _digests(tmp_path / "fresh") == _digests(tmp_path / "after") == _digests(tmp_path / "forked")


def _pid_and_square(key: int) -> tuple[int, int]:
    return os.getpid(), key * key


def test_fork_executor_runs_every_key_once_in_other_processes() -> None:
    results = list(ForkExecutor(2).map(lambda k: _pid_and_square(k), list(range(7))))  # a closure: not pickled
    assert sorted(k for k, _ in results) == list(range(7))
    assert all(value == key * key for key, (_, value) in results)
    assert os.getpid() not in {pid for _, (pid, _) in results}


def test_one_worker_runs_in_this_process() -> None:
    assert [v for _, (v, _) in ForkExecutor(1).map(_pid_and_square, [1, 2])] == [os.getpid()] * 2


def _fails_on_three(key: int) -> int:
    if key == 3:
        raise ValueError("key 3")
    return key


def test_a_task_error_is_raised_by_map() -> None:
    with pytest.raises(ValueError, match="key 3"):
        list(ForkExecutor(2).map(_fails_on_three, [1, 2, 3, 4, 5]))


def test_in_process_and_forked_agree_on_a_function_of_the_key() -> None:
    local = dict(InProcessExecutor().map(lambda k: k + 1, [5, 6, 7]))
    assert dict(ForkExecutor(2).map(lambda k: k + 1, [5, 6, 7])) == local == {5: 6, 6: 7, 7: 8}
