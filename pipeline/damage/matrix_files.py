"""Where the matrix's rows go: each scenario's rows, in publication order, cut into files at weapons chosen by
their id, so that a change to a few weapons (their stats, abilities or points) writes only the files holding
them again (docs/damage.md#files).

Cutting by row order keeps the copies of a statline from every source side by side, which is what the files
compress (a file per source grew them 1.37x); each file starts its own row groups.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

PARQUET_DIR = "damage_matrix"

#: A run of files starts at each weapon whose id hashes to a multiple of this (11 runs a scenario on the shared
#: corpora, 13,642 weapons) ...
FILE_START_EVERY = 1024
#: ... and each run is cut into the fewest files of equal size (±1) holding at most this many weapons: 60 files
#: a scenario, of 91-248 weapons. A change to a few weapons writes files of at most this size again, not the
#: runs' (one of 1,103 weapons at 256 on average) (docs/damage.md#files).
MAX_WEAPONS_PER_FILE = 256


def file_ranges(weapon_ids: Sequence[str]) -> list[tuple[int, int]]:
    """Weapon rows `[start, stop)` of each file, in order (one empty range without weapons). A run of files starts
    at every weapon (but the first) whose id `starts_file`, and is cut into equal files of at most
    MAX_WEAPONS_PER_FILE weapons: where files lie depends on the weapons of their run alone, so a weapon changed
    moves the rows of its own file, and one added or removed those of its run (and of the next one at most)."""
    starts = [row for row, weapon_id in enumerate(weapon_ids) if row and starts_file(weapon_id)]
    return [piece for run in pairwise([0, *starts, len(weapon_ids)]) for piece in _equal_files(*run)]


def _equal_files(start: int, stop: int) -> list[tuple[int, int]]:
    """`[start, stop)` cut into the fewest ranges of at most MAX_WEAPONS_PER_FILE rows, of equal size (±1)."""
    count = max(1, -(-(stop - start) // MAX_WEAPONS_PER_FILE))
    cuts = [start + (index * (stop - start)) // count for index in range(count + 1)]
    return list(pairwise(cuts))


def starts_file(weapon_id: str) -> bool:
    """Whether a run of files starts at this weapon: its id's sha256 (the same in every process) is a multiple
    of FILE_START_EVERY."""
    value = int.from_bytes(hashlib.sha256(weapon_id.encode()).digest()[:8], "big")
    return value % FILE_START_EVERY == 0


def scenario_dir(out_dir: Path, scenario: str) -> Path:
    """`<out_dir>/damage_matrix/scenario=<name>/` (hive layout: the scenario is in the path only)."""
    return Path(out_dir) / PARQUET_DIR / f"scenario={scenario}"


def part_path(out_dir: Path, scenario: str, index: int) -> Path:
    """The `index`-th file of a scenario: `part-00000.parquet`, ... (names sort in row order)."""
    return scenario_dir(out_dir, scenario) / f"part-{index:05d}.parquet"


def scenario_files(out_dir: Path, scenario: str) -> list[Path]:
    """A scenario's files in row order."""
    return sorted(scenario_dir(out_dir, scenario).glob("part-*.parquet"))


def fresh_scenario_dir(out_dir: Path, scenario: str) -> None:
    """A scenario's folder, created, without the files of an earlier write (a reader globs every part)."""
    scenario_dir(out_dir, scenario).mkdir(parents=True, exist_ok=True)
    for stale in scenario_files(out_dir, scenario):
        stale.unlink()
