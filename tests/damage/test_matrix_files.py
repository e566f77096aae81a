"""Where the matrix's rows are cut into files (`pipeline/damage/matrix_files.py`, docs/damage.md#files)."""

from __future__ import annotations

import pytest

from pipeline.damage import matrix_files
from pipeline.damage.matrix_files import file_ranges, starts_file

#: No id's sha256 is a multiple of 2^64 (the first 8 bytes are read): no run starts but the first.
NEVER = 2**64


@pytest.mark.parametrize(
    ("weapons", "expected"),
    [
        (0, [(0, 0)]),
        (1, [(0, 1)]),
        (256, [(0, 256)]),
        (257, [(0, 128), (128, 257)]),
        (512, [(0, 256), (256, 512)]),
        (513, [(0, 171), (171, 342), (342, 513)]),
        (600, [(0, 200), (200, 400), (400, 600)]),
    ],
)
def test_a_run_is_cut_into_the_fewest_equal_files_of_at_most_256_weapons(
    weapons: int, expected: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", NEVER)
    assert file_ranges([f"w{i}" for i in range(weapons)]) == expected


def test_every_weapon_that_starts_a_run_starts_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 1)
    assert file_ranges(["a", "b", "c"]) == [(0, 1), (1, 2), (2, 3)]


def _runs(ids: list[str]) -> list[list[tuple[int, int]]]:
    """The files of each run (a run starts at a file whose first weapon starts one)."""
    runs: list[list[tuple[int, int]]] = []
    for start, stop in file_ranges(ids):
        if not runs or starts_file(ids[start]):
            runs.append([])
        runs[-1].append((start, stop))
    return runs


def test_a_weapon_added_moves_the_files_of_its_own_run_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs start at about one weapon in 16 here, files hold at most 256: 2,000 weapons; one added in the middle
    of a run of more than 256 moves that run's cuts, and every other run's files are the same weapons."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 16)
    monkeypatch.setattr(matrix_files, "MAX_WEAPONS_PER_FILE", 8)
    ids = [f"weapon-{i:05d}" for i in range(2_000)]
    before = _runs(ids)
    long_run = next(run for run in before if run[-1][1] - run[0][0] > 8)
    middle = (long_run[0][0] + long_run[-1][1]) // 2
    added = next(f"new-{i}" for i in range(1_000) if not starts_file(f"new-{i}"))
    after = _runs([*ids[:middle], added, *ids[middle:]])
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        if old is long_run:
            assert len(new) == -(-(old[-1][1] - old[0][0] + 1) // 8)
            continue
        shift = 1 if old[0][0] > middle else 0
        assert new == [(start + shift, stop + shift) for start, stop in old]
