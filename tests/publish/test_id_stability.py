"""Unit ids across releases in one output folder as sources are added and removed.

Three runs into one folder: the seeds and the Wahapedia slice; the same plus the real World
Eaters catalogue (BSData); then the seeds and the catalogue without Wahapedia.
"""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
from pathlib import Path

import polars as pl
import pytest

from pipeline.run import RunResult, run_pipeline

pytestmark = pytest.mark.slow

WE_CATALOGUE = "Chaos - World Eaters.cat"


def _units(result: RunResult) -> dict[str, list[str]]:
    frame = pl.read_parquet(result.release / "units.parquet")
    return dict(zip(frame["unit_id"], frame["datasheet_ids"].to_list(), strict=True))


def _manifest(result: RunResult) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((result.release / "manifest.json").read_text())
    return loaded


@pytest.fixture(scope="module")
def runs(good_inputs: list[Path], bsdata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[RunResult]:
    out = tmp_path_factory.mktemp("stability") / "curated"
    catalogue = tmp_path_factory.mktemp("bsdata") / "bsdata"
    catalogue.mkdir()
    shutil.copy(bsdata_dir / WE_CATALOGUE, catalogue / WE_CATALOGUE)
    pages, wahapedia = good_inputs
    # Removing a source empties tables on purpose: the release checks against the previous release are off.
    return [run_pipeline(inputs, out, max_row_drop=1) for inputs in ([pages, wahapedia],
                                                                     [pages, wahapedia, catalogue],
                                                                     [pages, catalogue])]  # fmt: skip


def test_adding_bsdata_keeps_every_unit_id(runs: list[RunResult]) -> None:
    first, second = _units(runs[0]), _units(runs[1])
    assert set(first) <= set(second)
    assert second["unit:world-eaters:lord-invocatus"][:1] == ["bs:df9a-59b2-f464-59ad:3b15-b424-2059-71fa"]
    aliases = pl.read_parquet(runs[1].release / "id_aliases.parquet")
    assert aliases.filter(pl.col("kind") == "unit").is_empty()


def test_removing_wahapedia_keeps_the_ids_of_units_other_sources_hold(runs: list[RunResult]) -> None:
    second, third = _units(runs[1]), _units(runs[2])
    kept = {u for u, sheets in second.items() if any(not s.startswith("wh:") for s in sheets)}
    assert kept == set(third)  # Warboss and Nobz (Wahapedia only) are gone, nothing else moved
    assert {"unit:orks:warboss", "unit:orks:nobz"} <= set(second) - set(third)


def test_each_manifest_names_the_release_it_was_compared_with(runs: list[RunResult]) -> None:
    for earlier, later in pairwise(runs):
        manifest = _manifest(later)
        changes = manifest["changes"]
        assert isinstance(changes, dict)
        publication = manifest["publication"]
        assert isinstance(publication, dict)
        assert (publication["previous"], changes["against"]) == (earlier.version, earlier.version)
    units = _manifest(runs[2])["changes"]["tables"]["units"]  # type: ignore[index]
    assert units["removed"] == len(set(_units(runs[1])) - set(_units(runs[2])))
    assert _manifest(runs[0])["publication"] == {"sequence": 1, "previous": None}
