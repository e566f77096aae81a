"""`dataslate sql` through the installed console script: every attack fails in one line and
leaves every byte under the lab as it was; limits stop runaway queries; normal queries work."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.security.conftest import Lab, one_error_line, snapshot, sql_text
from tests.security.sql_attacks import ATTACKS

pytestmark = pytest.mark.slow  # a full release built through the console script (session fixture)

#: Attacks repeated on the release whose damage matrix is a view: those aimed at its files.
VIEW_ATTACKS = ("explain analyze copy over the damage matrix", "explain analyze copy over the feed", "read_blob")


def _attack(lab: Lab, release: Path, name: str, *options: str) -> str:
    before = snapshot(lab.root)
    query = ATTACKS[name].format(sql_text(release), sql_text(lab.root))
    message = one_error_line(lab.dataslate("sql", query, "--release", release, *options))
    assert snapshot(lab.root) == before
    return message


@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_fails_in_one_line_and_changes_nothing(lab: Lab, name: str) -> None:
    message = _attack(lab, lab.release, name)
    kind = ATTACKS[name].refused_as
    expected = f"read-only: {kind} statements are refused" if kind else "refused by the sandbox"
    assert expected in message


@pytest.mark.parametrize("name", VIEW_ATTACKS)
def test_an_attack_on_a_release_with_a_damage_matrix_view_changes_nothing(lab: Lab, name: str) -> None:
    assert "refused by the sandbox" in _attack(lab, lab.view_release, name)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT count(*) FROM range(1000000) a, range(1000000) b",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
    ],
)
def test_a_runaway_query_stops_at_the_time_limit(lab: Lab, query: str) -> None:
    before = snapshot(lab.root)
    result = lab.dataslate("sql", query, "--release", lab.out, "--timeout", "2", "--memory", "200MB")
    assert "stopped at the time limit (2s, --timeout)" in one_error_line(result)
    assert snapshot(lab.root) == before


@pytest.mark.parametrize(
    "query",
    [
        "SELECT list(range) FROM range(30000000)",  # one 240 MB list inside DuckDB
        "SELECT count(DISTINCT range) FROM range(30000000)",  # a 30-million-entry hash table
        "SELECT repeat('x', 1000) FROM range(1000000)",  # 1 GB of rows handed to Python
        "SELECT max(length(repeat('x', 600000000)))",  # one 600 MB string, which DuckDB does not count
    ],
)
def test_a_memory_hog_stops_at_the_memory_limit(lab: Lab, query: str) -> None:
    before = snapshot(lab.root)  # nothing spilled to a temp folder either
    result = lab.dataslate("sql", query, "--release", lab.out, "--memory", "100MB")
    assert "needs more than the memory limit (100MB, --memory)" in one_error_line(result)
    assert snapshot(lab.root) == before


@pytest.mark.parametrize("memory", ["80%", "-1", "lots", "0MB"])
def test_a_memory_limit_must_be_a_size(lab: Lab, memory: str) -> None:
    result = lab.dataslate("sql", "SELECT 1", "--release", lab.out, "--memory", memory)
    assert f"memory limit '{memory}' is not a size" in one_error_line(result)


def _rows(lab: Lab, query: str, release: Path) -> list[dict[str, Any]]:
    before = snapshot(lab.root)
    result = lab.dataslate("sql", query, "--release", release, "--json")
    assert result.returncode == 0, result.stderr
    assert snapshot(lab.root) == before
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_now_works(lab: Lab) -> None:
    (row,) = _rows(lab, "SELECT now() AS now", lab.out)
    assert datetime.fromisoformat(row["now"]).tzinfo is not None


def test_views_work_on_the_published_release(lab: Lab) -> None:
    """Names, factions and points as printed on the three pages of raw/pages."""
    rows = _rows(lab, "SELECT name, faction, points FROM v_unit_cards ORDER BY name", lab.out)
    assert rows == [
        {"name": "Avenger Strike Fighter", "faction": "Astra Militarum", "points": 130},
        {"name": "Lord Invocatus", "faction": "World Eaters", "points": 140},
        {"name": "Wazdakka Gutsmek", "faction": "Orks", "points": 175},
    ]


@pytest.mark.parametrize(("release", "kind"), [("release", "BASE TABLE"), ("view_release", "VIEW")])
def test_the_damage_matrix_resolves_as_a_table_or_a_view(lab: Lab, release: str, kind: str) -> None:
    folder = getattr(lab, release)
    manifest = json.loads((folder / "manifest.json").read_text())["row_counts"]
    kinds = _rows(lab, "SELECT table_type FROM information_schema.tables WHERE table_name = 'damage_matrix' "
                       "AND table_catalog = current_database()", folder)  # fmt: skip
    assert kinds == [{"table_type": kind}]
    assert _rows(lab, "SELECT count(*) AS n FROM damage_matrix", folder) == [{"n": manifest["damage_matrix"]}]
    reference = _rows(lab, "SELECT count(*) AS n FROM v_weapon_vs_reference", folder)
    assert reference == [{"n": manifest["damage_vs_reference"]}]
    scenarios = _rows(lab, "SELECT DISTINCT scenario FROM damage_matrix ORDER BY 1", folder)
    assert [r["scenario"] for r in scenarios] == ["charged", "cover", "default", "half_range", "stationary"]
