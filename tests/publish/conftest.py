"""Releases shared by the publish tests: built once per session, because every run pays the quality stage.

- `good_release`: the three seeds plus a slice of the real Wahapedia export (in-process run).
- `broken_release`: the same, hand-broken (`BrokenInputs`), published through `dataslate run`;
  its seeds are modified copies (Lord Invocatus 140 -> 110 points, Bolt pistol BS 2+ -> 3+) so
  `dataslate diff good broken` has known field changes to show.

Every output goes to pytest's temporary folders; the real export is only read.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import Result

from pipeline import config
from pipeline.run import RunResult, run_pipeline
from tests.publish.releases import Breakage, BrokenInputs, Published, invoke
from tests.publish.wahapedia_subset import NOBZ, WARBOSS, cut_last_row, insert_row, set_cell, write_subset

INVOCATUS_PAGE = "003_39e7b05ac4966267.txt"
#: (seed line as published, modified line): the changes `dataslate diff` must report.
SEED_EDITS = (
    (b"| 1 model | 140 |", b"| 1 model | 110 |"),
    (b'| Bolt pistol [pistol] | 12" | 1 | 2+ |', b'| Bolt pistol [pistol] | 12" | 1 | 3+ |'),
)
#: A weapon row whose datasheet is not in the export.
ORPHAN_WEAPON = b"000009999|1|1||Ghost shoota||24|Ranged|3|5|4|0|1|"


@pytest.fixture(scope="session")
def wh_subset(wahapedia_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_subset(wahapedia_dir, tmp_path_factory.mktemp("inputs") / "wahapedia")


@pytest.fixture(scope="session")
def good_inputs(wh_subset: Path) -> list[Path]:
    return [config.RAW_PAGES_DIR, wh_subset]


@pytest.fixture(scope="session")
def good_run(good_inputs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """The seeds + the Wahapedia slice, published in-process into a fresh output folder."""
    return run_pipeline(good_inputs, tmp_path_factory.mktemp("good") / "curated")


@pytest.fixture(scope="session")
def good_release(good_run: RunResult) -> Published:
    return Published(good_run.release.parent, good_run.version)


def _modified_seeds(target: Path) -> Path:
    shutil.copytree(config.RAW_PAGES_DIR, target)
    page = target / INVOCATUS_PAGE
    text = page.read_bytes()
    for before, after in SEED_EDITS:
        assert text.count(before) == 1, before
        text = text.replace(before, after)
    page.write_bytes(text)
    return target


def _wh(name: str) -> str:
    return f"wahapedia_csv:{name}"


def _break_wahapedia(folder: Path) -> dict[str, Breakage]:
    """The issue's four defects, each in a real row of the slice."""
    wargear = folder / "Datasheets_wargear.csv"
    t_zero = set_cell(folder / "Datasheets_models.csv", {"datasheet_id": WARBOSS}, "T", b"0")
    orphan = insert_row(wargear, 2, ORPHAN_WEAPON)
    text_bytes = set_cell(wargear, {"datasheet_id": WARBOSS, "name": "Big choppa"}, "name", b"Big ch\xff\xfeoppa")
    cut = cut_last_row(wargear, fields_kept=6)
    costs = folder / "Datasheets_models_cost.csv"
    cost_bytes = set_cell(costs, {"datasheet_id": NOBZ, "line": "2"}, "cost", b"2\xff10")
    cost_cut = cut_last_row(costs, fields_kept=3)  # `...|20 models|360|` -> `...|20 models|3`
    return {
        "t_zero": Breakage(
            _wh("Datasheets_models.csv"),
            t_zero,
            "model_profiles: toughness: Input should be greater than or equal to 1",
        ),
        "orphan_weapon": Breakage(_wh("Datasheets_wargear.csv"), orphan, "weapons: unknown datasheet"),
        "truncated": Breakage(_wh("Datasheets_wargear.csv"), cut, "csv: wrong field count"),
        "bad_utf8_number": Breakage(_wh("Datasheets_models_cost.csv"), cost_bytes, "csv: invalid UTF-8"),
        "truncated_in_last_field": Breakage(_wh("Datasheets_models_cost.csv"), cost_cut, "csv: truncated row"),
        "bad_utf8_text": Breakage(_wh("Datasheets_wargear.csv"), text_bytes, "UTF-8"),
        "page_ap": Breakage("page_export:900_broken_page.txt", 5, "ap: Input should be less than or equal to 0"),
        "page_cut": Breakage(
            "page_export:900_broken_page.txt", 6, "expected 6 values (range, A, skill, S, AP, D), found 2"
        ),
        "page_utf8": Breakage("page_export:900_broken_page.txt", 7, "UTF-8"),
    }


@pytest.fixture(scope="session")
def broken_inputs(wh_subset: Path, tmp_path_factory: pytest.TempPathFactory) -> BrokenInputs:
    root = tmp_path_factory.mktemp("broken_inputs")
    wahapedia = root / "wahapedia"
    shutil.copytree(wh_subset, wahapedia)
    inputs = BrokenInputs(pages=_modified_seeds(root / "pages"), wahapedia=wahapedia)
    inputs.breakages = _break_wahapedia(wahapedia)
    return inputs


@pytest.fixture(scope="session")
def broken_run(broken_inputs: BrokenInputs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """`dataslate run` on the broken inputs: (output folder, CLI result)."""
    out = tmp_path_factory.mktemp("broken") / "curated"
    args: list[str | Path] = ["run", "--out", out]
    for path in broken_inputs.paths:
        args += ["--input", path]
    return out, invoke(*args)


@pytest.fixture(scope="session")
def broken_release(broken_run: tuple[Path, Result]) -> Published:
    out, result = broken_run
    assert result.exit_code == 0, result.output
    return Published(out, (out / config.LATEST_NAME).readlink().name)


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every pytest-xdist worker of this session sees (the parent of the workers' base temps)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name


@contextmanager
def _one_at_a_time(lock: Path) -> Iterator[None]:
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def real_run(pages_dir: Path, wahapedia_dir: Path, bsdata_dir: Path,
             tmp_path_factory: pytest.TempPathFactory) -> RunResult:  # fmt: skip
    """The whole real release (seeds + Wahapedia export + BSData catalogues), once per session (minutes)."""
    # Without the unit x unit table (43 M rows, minutes of CPU: `make bench` part `matchups` measures it);
    # unit_vs_reference, the feed's unit table, is built and checked.
    # Built once for all workers: the first builds, the others wait and get it back from the run cache.
    shared = _shared_folder(tmp_path_factory, "real")
    with _one_at_a_time(shared / "build.lock"):
        return run_pipeline([pages_dir, wahapedia_dir, bsdata_dir], shared / "curated", matchup_scenarios=())


@pytest.fixture(scope="session")
def release(real_run: RunResult) -> Path:
    return real_run.release
