"""`dataslate diff` between two real releases and `dataslate sql` on one, through the real command.

OLD is `good_release` (the seeds + a Wahapedia slice), NEW is `broken_release`, whose Lord
Invocatus page was edited (140 -> 110 points, Bolt pistol BS 2+ -> 3+) and whose Wahapedia
slice lost rows to quarantine (see conftest).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import Result

from pipeline import config
from pipeline.run import RunResult
from pipeline.store.load import DAMAGE_TABLE_MAX_ROWS, attach_damage_matrix
from tests.publish.conftest import INVOCATUS_PAGE
from tests.publish.releases import Published, invoke, one_error, sha256

pytestmark = pytest.mark.slow

INVOCATUS_POINTS = "page:world-eaters:lord-invocatus | 1 | 1 model"
BOLT_PISTOL = "page:world-eaters:lord-invocatus:ranged:bolt-pistol"

#: The seeds' weapons as printed on the pages (raw/pages/00[023]_*.txt), in weapon_id order.
SEED_WEAPONS = [
    ("Armoured hull", "melee", None, "6", 4, "8", 0, "1", []),
    ("Avenger bolt cannon", "ranged", 36, "10", 4, "6", -1, "2", ["sustained hits 1"]),
    ("Heavy stubber", "ranged", 36, "3", 4, "4", 0, "1", ["rapid fire 3"]),
    ("Lascannon", "ranged", 48, "1", 4, "12", -3, "D6+1", []),
    ("Fixit’s wrench", "melee", None, "1", 4, "3", 0, "1", ["extra attacks"]),
    ("Grabba dragga", "melee", None, "6", 2, "10", -2, "3", ["lance"]),
    ("Speeding bulk and flaming exhaust", "melee", None, "6", 2, "5", -1, "1", ["extra attacks"]),
    ("Grabba dragga", "ranged", 12, "1", 2, "10", -2, "3", ["assault", "precision"]),
    ("Psyko-gatler", "ranged", 24, "12", 4, "6", -2, "2", ["assault", "sustained hits 1"]),
    ("Coward’s Bane", "melee", None, "7", 2, "6", -2, "2", ["devastating wounds"]),
    ("Juggernaut’s bladed horn", "melee", None, "4", 3, "6", -1, "2", ["extra attacks", "lance"]),
    ("Bolt pistol", "ranged", 12, "1", 2, "4", 0, "1", ["pistol"]),
]
WEAPON_COLUMNS = ("name", "kind", "range_inches", "attacks", "skill", "strength", "ap", "damage", "abilities")


def _json_rows(result: Result) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# --- dataslate diff --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diff_text(good_release: Published, broken_release: Published) -> str:
    result = invoke("diff", good_release.out, broken_release.out)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def diff_json(good_release: Published, broken_release: Published) -> dict[str, dict[str, Any]]:
    result = invoke("diff", good_release.out, broken_release.out, "--json")
    assert result.exit_code == 0, result.output
    return {table["table"]: table for table in json.loads(result.stdout)}


def _section(text: str, table: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {table}:"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("== ")), len(lines))
    return lines[start:end]


def test_diff_text_lists_the_changed_points_and_skill_field_by_field(diff_text: str) -> None:
    assert f"  ~ {INVOCATUS_POINTS}: cost 140 -> 110" in _section(diff_text, "points")
    assert f"  ~ {BOLT_PISTOL}: skill 2 -> 3" in _section(diff_text, "weapons")


def test_diff_text_lists_rows_added_and_removed_by_stable_id(diff_text: str) -> None:
    assert "  - wh:000000001:1" in _section(diff_text, "model_profiles")
    assert "  - wh:000002627:melee:khornate-eviscerator" in _section(diff_text, "weapons")
    assert "  + page:space-marines:test-sergeant:ranged:boltgun" in _section(diff_text, "weapons")
    assert "  - wh:000000021 | 10 | 10 models" in _section(diff_text, "points")


def test_diff_json_holds_the_same_changes(diff_json: dict[str, dict[str, Any]]) -> None:
    points = {row["key"]: row["fields"] for row in diff_json["points"]["changed"]}
    weapons = {row["key"]: row["fields"] for row in diff_json["weapons"]["changed"]}
    assert points[INVOCATUS_POINTS] == {"cost": [140, 110]}
    assert weapons[BOLT_PISTOL] == {"skill": [2, 3]}
    assert {"key": "wh:000000001:1"} in diff_json["model_profiles"]["removed"]


def test_diff_text_and_json_agree_table_by_table(diff_text: str, diff_json: dict[str, dict[str, Any]]) -> None:
    headers = [line for line in diff_text.splitlines() if line.startswith("== ")]
    expected = [f"== {t}: +{len(d['added'])} -{len(d['removed'])} ~{len(d['changed'])}" for t, d in diff_json.items()]
    assert headers == expected
    changed_lines = [line for line in diff_text.splitlines() if line.startswith("  ~ ")]
    assert len(changed_lines) == sum(len(row["fields"]) for d in diff_json.values() for row in d["changed"])


def test_diff_leaves_untouched_units_out(diff_json: dict[str, dict[str, Any]]) -> None:
    """Wazdakka's page did not change: apart from its file path in `sources`, no row of it differs."""
    mentioned = [
        (table, row["key"])
        for table, d in diff_json.items()
        if table != "sources"
        for row in d["added"] + d["removed"] + d["changed"]
        if "wazdakka" in row["key"] or "000_2e2c183ddf21453e" in row["key"]
    ]
    assert mentioned == []


def test_diff_summary_counts_rows_per_table(good_release: Published, broken_release: Published,
                                            diff_json: dict[str, dict[str, Any]]) -> None:  # fmt: skip
    text = invoke("diff", good_release.out, broken_release.out, "--summary")
    counts = json.loads(invoke("diff", good_release.out, broken_release.out, "--summary", "--json").stdout)
    # units: the broken page's Test Sergeant is new; the Warboss lost its statline (its T 0 row quarantined).
    assert text.exit_code == 0 and counts["units"] == {"added": 1, "removed": 0, "changed": 1}
    for table, d in diff_json.items():
        assert counts[table] == {k: len(d[k]) for k in ("added", "removed", "changed")}, table
        assert f"+{len(d['added'])} -{len(d['removed'])} ~{len(d['changed'])}" in text.stdout
    assert "unit_weapons" in counts and "damage_vs_reference" in counts
    assert (
        f"findings: {len(diff_json['findings']['added'])} new, {len(diff_json['findings']['removed'])} fixed"
        in text.stdout
    )


def test_diff_lists_findings_fixed_with_their_message(diff_text: str, diff_json: dict[str, dict[str, Any]]) -> None:
    """The edited page now agrees with Wahapedia (110 points, Bolt pistol 3+): both conflicts are fixed."""
    fixed = [line for line in _section(diff_text, "findings") if line.startswith("  fixed finding:source_conflict:")]
    costs = "wahapedia_csv:Datasheets_models_cost.csv"
    points = (
        f"Lord Invocatus: points differs: 140 in page_export:{INVOCATUS_PAGE}, 110 in {costs}; chosen 110 ({costs})"
    )
    assert any(line.endswith(points) for line in fixed), fixed
    assert any("Lord Invocatus: weapon:Bolt pistol:skill differs: 2+ in page_export" in line for line in fixed), fixed
    removed = {row["key"]: row for row in diff_json["findings"]["removed"]}
    assert {row["category"] for row in removed.values()} >= {"source_conflict"}
    assert all(row["message"] and row["severity"] for row in removed.values())


def test_diff_leaves_provenance_out(diff_json: dict[str, dict[str, Any]]) -> None:
    """Lord Invocatus's points changed on the page (140 -> 110), not which source wins (Wahapedia's
    dated 110): its provenance reason changes, its values do not — so no `units` row changed for it."""
    fields = [row["fields"] for d in diff_json.values() for row in d["changed"]]
    assert all("provenance" not in f and "line" not in f for f in fields)
    assert "unit:world-eaters:lord-invocatus" not in {row["key"] for row in diff_json["units"]["changed"]}


def test_a_release_has_no_differences_with_itself(good_release: Published) -> None:
    published = good_release
    result = invoke("diff", published.out, published.release)
    assert (result.exit_code, result.stdout) == (0, "no differences\n")


# --- dataslate sql ---------------------------------------------------------------------------------


def test_sql_returns_the_seed_weapons(good_release: Published) -> None:
    query = f"SELECT {', '.join(WEAPON_COLUMNS)} FROM weapons WHERE source_id LIKE 'page_export:%' ORDER BY weapon_id"
    rows = _json_rows(invoke("sql", query, "--release", good_release.out, "--json"))
    assert rows == [dict(zip(WEAPON_COLUMNS, weapon, strict=True)) for weapon in SEED_WEAPONS]


def test_sql_reads_a_version_folder_and_views(good_release: Published) -> None:
    """One card per unit: Lord Invocatus of the page and of Wahapedia, 110 points (Wahapedia is dated)."""
    query = "SELECT unit_id, points, models, datasheets FROM v_unit_cards WHERE name = 'Lord Invocatus'"
    rows = _json_rows(invoke("sql", query, "-r", good_release.release, "--json"))
    assert rows == [{"unit_id": "unit:world-eaters:lord-invocatus", "points": 110, "models": 1, "datasheets": 2}]


def test_sql_limit_csv_and_rounded_floats(good_release: Published) -> None:
    query = "SELECT unit, weapon, damage FROM v_weapon_vs_reference WHERE golden ORDER BY damage DESC, weapon_id"
    full = _json_rows(invoke("sql", query, "-r", good_release.out, "--json"))
    csv_out = invoke("sql", query, "-r", good_release.out, "--csv", "--limit", "2")
    lines = csv_out.stdout.splitlines()
    assert lines[0] == "unit,weapon,damage" and len(lines) == 3
    assert lines[1].endswith("," + repr(full[0]["damage"]))  # CSV keeps the float whole
    table = invoke("sql", query, "-r", good_release.out, "--limit", "1")
    rounded = f"{full[0]['damage']:.3f}".rstrip("0").rstrip(".")
    assert rounded in table.stdout and repr(full[0]["damage"]) not in table.stdout
    assert len(_json_rows(invoke("sql", query, "-r", good_release.out, "--json", "--limit", "0"))) == 0


def test_sql_prints_values_as_they_are(good_release: Published) -> None:
    """Cells are text, not Rich markup: `[pistol]` stays, `[/x]` does not crash the table."""
    result = invoke("sql", "SELECT '[pistol]' AS a, '[/x]' AS b", "--release", good_release.out)
    assert result.exit_code == 0, result.output
    assert "[pistol]" in result.stdout and "[/x]" in result.stdout


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("INSERT INTO points VALUES ('x', 1, 1, '', NULL, NULL)", "INSERT"),
        ("CREATE TABLE scratch AS SELECT 1 AS a", "CREATE"),
        ("DROP TABLE weapons", "DROP"),
        ("UPDATE points SET cost = 1", "UPDATE"),
        ("SELECT 1; DELETE FROM points", "DELETE"),
    ],
)
def test_sql_refuses_writes(query: str, kind: str, good_release: Published) -> None:
    db = good_release.release / config.DUCKDB_FILENAME
    before = sha256(db)
    message = one_error(invoke("sql", query, "--release", good_release.out))
    assert f"read-only: {kind} statements are refused" in message
    assert sha256(db) == before


def test_sql_cannot_attach_another_release_for_writing(good_release: Published, broken_release: Published) -> None:
    victim = broken_release.release / config.DUCKDB_FILENAME
    before = sha256(victim)
    query = f"ATTACH '{victim}' AS other (READ_WRITE); DELETE FROM other.points"
    assert "read-only: ATTACH statements are refused" in one_error(invoke("sql", query, "-r", good_release.out))
    assert sha256(victim) == before


def test_sql_cannot_write_files(good_release: Published, tmp_path: Path) -> None:
    target = tmp_path / "weapons.csv"
    query = f"COPY (SELECT * FROM weapons) TO '{target}'"
    assert "read-only: COPY statements are refused" in one_error(invoke("sql", query, "-r", good_release.out))
    assert not target.exists()


def test_sql_reports_a_bad_query_in_one_message(good_release: Published) -> None:
    assert "Catalog Error" in one_error(invoke("sql", "SELECT * FROM no_such_table", "-r", good_release.out))


def test_the_damage_matrix_table_resolves_through_sql(good_release: Published, good_run: RunResult) -> None:
    published, result = good_release, good_run
    counts = _json_rows(invoke("sql", "SELECT count(*) AS n FROM damage_matrix", "-r", published.out, "--json"))
    assert counts == [{"n": result.row_counts["damage_matrix"]}]
    query = (
        "SELECT weapon_id, damage FROM v_weapon_vs_reference WHERE unit = 'Lord Invocatus' "
        "AND weapon = 'Bolt pistol' AND target LIKE 'MEQ%' AND scenario = 'default' ORDER BY 1"
    )
    rows = _json_rows(invoke("sql", query, "-r", published.out, "--json"))
    # A1, S4, AP0, D1 against T4 Sv3+: hit on 2+ (page) or 3+ (Wahapedia), wound on 4+, save fails on 1-2.
    assert [row["weapon_id"] for row in rows] == [BOLT_PISTOL, "wh:000002623:ranged:bolt-pistol"]
    assert [row["damage"] for row in rows] == pytest.approx([5 / 6 * 1 / 2 * 1 / 3, 2 / 3 * 1 / 2 * 1 / 3])


def test_a_large_damage_matrix_is_a_view_that_resolves_from_anywhere(
    good_release: Published, good_run: RunResult, tmp_path: Path
) -> None:
    """Above DAMAGE_TABLE_MAX_ROWS the DuckDB file holds a view over the release's own Parquet.

    The release is built as a view in one folder, then moved: the view must follow it.
    """
    published, result = good_release, good_run
    built = tmp_path / "built" / published.version
    shutil.copytree(published.release, built)
    db = built / config.DUCKDB_FILENAME
    con = duckdb.connect(str(db))
    con.execute("DROP VIEW v_weapon_vs_reference; DROP TABLE damage_matrix; CHECKPOINT")
    con.close()
    assert attach_damage_matrix(db, DAMAGE_TABLE_MAX_ROWS + 1) == "view"
    copy = built.rename(tmp_path / published.version)
    counts = _json_rows(invoke("sql", "SELECT count(*) AS n FROM damage_matrix", "-r", copy, "--json"))
    reference = _json_rows(invoke("sql", "SELECT count(*) AS n FROM v_weapon_vs_reference", "-r", copy, "--json"))
    views = _json_rows(invoke("sql", "SELECT table_type FROM information_schema.tables "
                                     "WHERE table_name = 'damage_matrix' AND table_catalog = current_database()",
                                "-r", copy, "--json"))  # fmt: skip
    assert views == [{"table_type": "VIEW"}]
    assert counts == [{"n": result.row_counts["damage_matrix"]}]
    assert reference == [{"n": result.row_counts["damage_vs_reference"]}]
