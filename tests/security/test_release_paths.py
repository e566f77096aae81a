"""A release folder named like SQL is only a name: building and opening it runs nothing."""

from __future__ import annotations

import subprocess

import pytest

from pipeline import config
from pipeline.publish.outdir import LOCK_NAME
from tests.security.conftest import Lab, snapshot

pytestmark = pytest.mark.slow  # a full release built through the console script (session fixture)


def test_an_output_folder_named_like_an_injection_publishes_and_writes_nothing_else(lab: Lab) -> None:
    """`dataslate run --out "x'; COPY (SELECT 42) TO '<root>/PWNED.csv'; SELECT '"` (nested folders)."""
    assert not (lab.root / "PWNED.csv").exists()
    assert sorted(p.name for p in lab.root.iterdir()) == sorted(
        ["home", "tmp", "T'au, Empire", lab.out.relative_to(lab.root).parts[0]]
    )
    assert sorted(p.name for p in lab.out.iterdir()) == sorted(
        [config.LATEST_NAME, config.DUCKDB_FILENAME, "manifest.json", lab.release.name, LOCK_NAME]
    )
    assert list((lab.root / "home").iterdir()) == []


@pytest.mark.parametrize(
    ("command", "release"),
    [
        (("sql", "SELECT count(*) FROM weapons"), "out"),
        (("sql", "SELECT count(*) FROM damage_matrix"), "view_release"),
        (("quality",), "view_release"),  # the quality re-check reads through the same sandbox
    ],
)
def test_reading_a_release_in_such_a_folder_runs_nothing_else(lab: Lab, command: tuple[str, ...], release: str) -> None:
    before = snapshot(lab.root)
    result: subprocess.CompletedProcess[str] = lab.dataslate(*command, "--release", getattr(lab, release))
    assert result.returncode == 0, result.stderr
    assert snapshot(lab.root) == before
    assert not (lab.root / "PWNED.csv").exists()
