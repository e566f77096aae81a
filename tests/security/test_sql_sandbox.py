"""The sandbox alone holds: every attack sent straight to `open_release`, past the statement check.

And each attack is real: on a plain read-only connection (what `dataslate sql` used to open) the
writes write, the reads read and the configuration changes.
"""

from __future__ import annotations

import resource
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.errors import PipelineError
from pipeline.publish.query import open_release, run_query
from pipeline.publish.sql_limits import SqlLimits
from tests.security.conftest import Lab, snapshot, sql_text
from tests.security.sql_attacks import ATTACKS

pytestmark = pytest.mark.slow  # a full release built through the console script (session fixture)


@pytest.mark.parametrize("release", ["release", "view_release"])
@pytest.mark.parametrize("name", ATTACKS)
def test_the_sandbox_refuses_an_attack_without_the_statement_check(lab: Lab, name: str, release: str) -> None:
    folder = getattr(lab, release)
    before = snapshot(lab.root)
    con = open_release(folder)
    try:
        with pytest.raises(duckdb.Error):
            con.execute(ATTACKS[name].format(sql_text(folder), sql_text(lab.root)))
    finally:
        con.close()
    assert snapshot(lab.root) == before


@pytest.fixture()
def scratch(lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the release in a fresh folder, free to be damaged; relative paths land beside it."""
    monkeypatch.chdir(tmp_path)
    return Path(shutil.copytree(lab.release, tmp_path / "release"))


@pytest.mark.parametrize("name", [n for n, a in ATTACKS.items() if a.effect == "writes"])
def test_without_the_sandbox_the_write_routes_write(scratch: Path, name: str) -> None:
    before = snapshot(scratch.parent)
    con = duckdb.connect(str(scratch / config.DUCKDB_FILENAME), read_only=True)
    try:
        con.execute(ATTACKS[name].format(sql_text(scratch), sql_text(scratch.parent)))
    finally:
        con.close()
    assert snapshot(scratch.parent) != before


@pytest.mark.parametrize("name", [n for n, a in ATTACKS.items() if a.effect in ("reads", "reconfigures")])
def test_without_the_sandbox_the_read_and_configuration_routes_run(scratch: Path, name: str) -> None:
    con = duckdb.connect(str(scratch / config.DUCKDB_FILENAME), read_only=True)
    try:
        con.execute(ATTACKS[name].format(sql_text(scratch), sql_text(scratch.parent)))
        if ATTACKS[name].effect == "reads":
            assert con.fetchall()
    finally:
        con.close()


@pytest.mark.parametrize(
    ("query", "rows"),
    [("SELECT count(*) FROM weapons", [(12,)]), ("SELECT max(length(repeat('x', 600000000)))", None)],
)
def test_the_memory_ceiling_is_lifted_after_a_query(lab: Lab, query: str, rows: list[tuple[int]] | None) -> None:
    """The data-segment cap holds only while the query runs, whether it succeeds or not."""
    before = resource.getrlimit(resource.RLIMIT_DATA)
    if rows is None:
        with pytest.raises(PipelineError, match="memory limit"):
            run_query(query, lab.release, SqlLimits(memory="100MB"))
    else:
        assert run_query(query, lab.release, SqlLimits(memory="100MB"))[1] == rows
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
