"""The whole real release (seeds + Wahapedia export + BSData catalogues): the feed against its own JSON
Schemas, the README's queries, plain-string ids, one card per unit.

Built once per session (minutes: the damage matrix has ~205 M cells); every output goes to pytest's
temporary folders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import jsonschema_rs
import orjson
import polars as pl
import pytest
from jsonschema import Draft202012Validator

from pipeline import config
from pipeline.damage.matrix_files import scenario_files, starts_file
from pipeline.publish.query import run_query
from pipeline.reconcile.factions import NO_FACTION_NAME
from pipeline.run import RunResult

pytestmark = pytest.mark.slow

README = config.REPO_ROOT / "README.md"
#: Top-level keywords of a table row schema: an object of properties, all required, nothing else.
ROW_SCHEMA_KEYWORDS = {"$schema", "$id", "title", "description", "type", "properties", "required",
                       "additionalProperties"}  # fmt: skip


def _schema(release: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((release / "schemas" / f"{name}.schema.json").read_text())
    return loaded


def _value_key(value: object) -> object:
    if isinstance(value, list | dict):
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    return (type(value).__name__, value)


def _invalid_rows(path: Path, schema: dict[str, Any]) -> Iterator[str]:
    """Rows of an NDJSON file that break a row schema, as messages.

    A row schema is an object whose properties are all required and nothing else is allowed, so a row
    is valid exactly when its keys are the properties and each value is valid against its property's
    schema: each distinct value of a column is validated once (the 600,000 damage rows repeat most).
    """
    assert set(schema) <= ROW_SCHEMA_KEYWORDS, set(schema) - ROW_SCHEMA_KEYWORDS
    assert schema["required"] == sorted(schema["properties"]) and schema["additionalProperties"] is False
    validators = {k: Draft202012Validator(v) for k, v in schema["properties"].items()}
    seen: dict[str, set[object]] = {k: set() for k in validators}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            row = orjson.loads(line)  # the same values as json.loads, at a fraction of the 1.2 M rows' parse time
            if number == 1:
                Draft202012Validator(schema).validate(row)  # one whole row, as any client would
            if set(row) != set(validators):
                yield f"{path.name}:{number}: columns {sorted(set(row) ^ set(validators))}"
                continue
            for column, value in row.items():
                key = _value_key(value)
                if key not in seen[column]:
                    seen[column].add(key)
                    for error in validators[column].iter_errors(value):
                        yield f"{path.name}:{number}: {column}: {error.message}"


def test_every_feed_row_validates_against_its_published_schema(release: Path, real_run: RunResult) -> None:
    feed = sorted((release / "feed").glob("*.ndjson"))
    assert {p.stem for p in feed} == {t for t in real_run.row_counts if t != "damage_matrix"}
    for path in feed:
        schema = _schema(release, path.stem)
        Draft202012Validator.check_schema(schema)
        assert (schema["$id"], schema["title"]) == (f"urn:dataslate:schema:{path.stem}", path.stem)
        assert list(_invalid_rows(path, schema))[:5] == [], path.name
    rows = sum(1 for path in feed for _ in path.open(encoding="utf-8"))
    assert rows == sum(n for t, n in real_run.row_counts.items() if t != "damage_matrix")


def _faction_documents(release: Path) -> list[Path]:
    documents = sorted((release / "feed" / "factions").glob("*.json"))
    assert len(documents) == 26
    return documents


def test_every_faction_document_validates_against_its_schema(release: Path) -> None:
    """Every document with jsonschema-rs (Rust: ≈ 40 × faster than the reference validator on 26 documents);
    that it enforces what the reference validator does is checked on a real document below."""
    schema = _schema(release, "faction_document")
    Draft202012Validator.check_schema(schema)
    validator = jsonschema_rs.Draft202012Validator(schema)
    for path in _faction_documents(release):
        errors = [e.message for e in validator.iter_errors(orjson.loads(path.read_bytes()))]
        assert errors[:3] == [], path.name


def _broken_copies(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The document with one defect each, deep in a card (a weapon's damage, an id pattern, a stray key)."""
    u, w = next((u, w) for u, unit in enumerate(document["units"]) for w, weapon in enumerate(unit["weapons"])
                if weapon["damage_vs_reference"])  # fmt: skip
    scenario, cells = next(iter(document["units"][u]["weapons"][w]["damage_vs_reference"].items()))
    profile = next(iter(cells))

    def edited(change: Callable[[dict[str, Any], dict[str, Any]], object]) -> dict[str, Any]:
        copy: dict[str, Any] = orjson.loads(orjson.dumps(document))
        change(copy["units"][u]["weapons"][w], copy)
        return copy

    yield "damage as text", edited(lambda wp, _: wp["damage_vs_reference"][scenario][profile].update(damage="1"))
    yield "unit id pattern", edited(lambda _, doc: doc["units"][0].update(unit_id="Unit Zero"))
    yield "stray key", edited(lambda wp, _: wp.update(extra=1))
    yield "key missing", edited(lambda wp, _: wp.pop("weapon_id"))


def test_jsonschema_rs_rejects_what_the_reference_validator_rejects(release: Path) -> None:
    schema = _schema(release, "faction_document")
    fast, reference = jsonschema_rs.Draft202012Validator(schema), Draft202012Validator(schema)
    document = orjson.loads(min(_faction_documents(release), key=lambda p: p.stat().st_size).read_bytes())
    assert fast.is_valid(document) and reference.is_valid(document)
    for defect, broken in _broken_copies(document):
        assert (fast.is_valid(broken), reference.is_valid(broken)) == (False, False), defect


def test_schemas_describe_their_columns_and_id_formats(release: Path) -> None:
    units = _schema(release, "units")
    assert units["properties"]["unit_id"]["pattern"] == r"^unit:[a-z0-9-]+:[a-z0-9-]+$"
    assert units["properties"]["provenance"]["type"] == "object"
    assert units["properties"]["legend"]["description"].startswith("A Legends")
    vs_reference = _schema(release, "damage_vs_reference")
    assert vs_reference["properties"]["profile_id"]["pattern"] == r"^(wh|bs|page|ref):.+$"
    undescribed = [
        (path.name, column)
        for path in (release / "schemas").glob("*.schema.json")
        for column, prop in json.loads(path.read_text()).get("properties", {}).items()
        if column.endswith("_id") and "description" not in prop
    ]
    assert undescribed == []


def test_one_card_per_unit_and_one_file_per_faction(release: Path) -> None:
    """World Eaters: 89 datasheets for 61 units on main, 27 twice; now one card each."""
    units = pl.read_parquet(release / "units.parquet")
    factions = sorted(set(units["faction"]) - {NO_FACTION_NAME})
    files = {p.name: json.loads(p.read_text()) for p in (release / "feed" / "factions").glob("*.json")}
    assert sorted(d["faction"] for d in files.values()) == factions  # no pseudo faction, no overwrite
    assert "warhammer-40-000-10th-edition.json" not in files and "no-faction.json" not in files
    for document in files.values():
        ids = [u["unit_id"] for u in document["units"]]
        assert len(ids) == len(set(ids)) == units.filter(pl.col("faction") == document["faction"]).height
    eaters = {u["name"]: u for u in files["world-eaters.json"]["units"]}
    invocatus = eaters["Lord Invocatus"]
    assert len(invocatus["sources"]) == 3 and "unit:world-eaters:khorne-berzerkers" in invocatus["leads"]
    assert "unit:world-eaters:lord-invocatus" in eaters["Khorne Berzerkers"]["led_by"]
    assert files["world-eaters.json"]["weapon_abilities"]["devastating wounds"]["title"] == "Devastating Wounds"


def _statements() -> list[str]:
    """The SQL statements of the README's example queries, comments dropped."""
    block = re.search(r"### Example queries.*?```sql\n(.*?)```", README.read_text(), re.DOTALL)
    assert block is not None
    text = "\n".join(line for line in block.group(1).splitlines() if not line.strip().startswith("--"))
    return [sql.strip() for sql in text.split(";") if sql.strip()]


def test_readme_queries_answer_on_the_real_release(release: Path) -> None:
    statements = _statements()
    assert len(statements) == 8
    for sql in statements:
        columns, rows = run_query(sql, release)
        assert columns, sql
        assert rows or "id_aliases" in sql, sql  # a first release in its folder has no unit aliases


def test_readme_anti_tank_query_lists_each_units_weapon_once(release: Path) -> None:
    """On main the README's example gave Termagants' Strangleweb twice, once per source: now each unit's
    weapon is one golden row (a unit lists a name twice only for two profiles of one datasheet)."""
    (sql,) = [s for s in _statements() if "Main battle tank" in s]
    wide = sql.replace("select faction,", "select unit_id, source_id, weapon_id, faction,")
    columns, rows = run_query(wide.replace("limit 10", "limit 100000"), release)
    named = [dict(zip(columns, r, strict=True)) for r in rows]
    assert len({(r["unit_id"], r["weapon_id"]) for r in named}) == len(named)
    sources: dict[tuple[str, str, str], set[str]] = {}
    for r in named:  # a Legends and a current Hell's Last are two units of one name: keyed by unit_id
        sources.setdefault((r["unit_id"], r["weapon"], r["kind"]), set()).add(r["source_id"])
    assert [k for k, found in sources.items() if len(found) > 1] == []
    assert [r["source_id"] for r in named if r["unit"] == "Termagants" and r["weapon"] == "Strangleweb"] == [
        "bsdata:Tyranids.cat"
    ]


def test_readme_stratagem_query_gives_each_stratagem_once(release: Path) -> None:
    """41 rows with COMMAND RE-ROLL four times on main; now one row per distinct stratagem: the core one
    and the Boarding Actions one."""
    (sql,) = [s for s in _statements() if "datasheet_stratagems" in s]
    _, rows = run_query(sql, release)
    rerolls = sorted(r[2] for r in rows if r[0] == "Command Re-roll")  # names in display case
    assert rerolls == ["Boarding Actions", "Core"]
    assert len(rows) == len({(r[0], r[2]) for r in rows})
    types = {r[3] for r in rows}
    assert types <= {"Battle Tactic", "Strategic Ploy", "Epic Deed", "Wargear"}


def test_the_terminator_profiles_are_matched_by_profile(release: Path) -> None:
    (sql,) = [s for s in _statements() if "unit_profiles" in s]
    _, rows = run_query(sql, release)
    by_name = {r[0]: r for r in rows}
    assert by_name["Assault Terminator w/ Lightning Claws"][4] == 3  # the main profile: W3, not the shield's 4
    assert rows[0][0] == "Assault Terminator w/ Lightning Claws"
    conflicts = run_query(
        "select field from source_conflicts where unit_id = 'unit:space-marines:terminator-assault-squad'", release
    )[1]
    assert ("wounds",) not in conflicts


def test_parquet_ids_join_in_polars(release: Path) -> None:
    """`damage_matrix.weapon_id` was a Polars Enum that joined to no string column; a scenario's
    partition now joins `weapons` directly."""
    part = pl.scan_parquet(release / "damage_matrix" / "scenario=default" / "*.parquet")
    assert part.collect_schema()["weapon_id"] == pl.String()
    weapons = pl.read_parquet(release / "weapons.parquet").select("weapon_id", "name")
    joined = part.head(100_000).join(weapons.lazy(), on="weapon_id", how="inner").collect()
    assert joined.height == 100_000
    vs_reference = pl.read_parquet(release / "damage_vs_reference.parquet", columns=["unit_id", "weapon_id"])
    units = pl.read_parquet(release / "units.parquet", columns=["unit_id"])
    assert vs_reference.join(units, on="unit_id", how="anti").is_empty()


def test_feed_index_and_manifest_sizes(release: Path) -> None:
    index = json.loads((release / "feed" / "index.json").read_text())
    manifest = json.loads((release / "manifest.json").read_text())
    listed = {f["path"]: f for f in index["files"]}
    on_disk = {str(p.relative_to(release / "feed")): p for p in (release / "feed").rglob("*") if p.is_file()}
    assert set(listed) == set(on_disk) - {"index.json"}
    for path, entry in listed.items():
        assert entry["bytes"] == on_disk[path].stat().st_size == manifest["file_sizes"][f"feed/{path}"]
        assert entry["sha256"] == manifest["files"][f"feed/{path}"]
        assert (release / entry["schema"]).is_file()
    assert manifest["file_sizes"].keys() == manifest["files"].keys()


def test_each_scenario_is_cut_into_runs_where_weapons_start_them_and_runs_into_equal_files(release: Path) -> None:
    """Pages + Wahapedia + the 24 shared catalogues (counted from a release at stop 40): 13,642 weapons against
    3,006 targets a scenario, in 11 runs of 91 to 3,339 weapons, each starting (but the first) at a weapon whose id
    `starts_file` and holding no other such weapon, cut into the fewest files of at most 256 weapons, of equal size
    (±1): 60 files of 91 to 248 weapons (docs/damage.md#files)."""
    scenarios = sorted(p.name.removeprefix("scenario=") for p in (release / "damage_matrix").iterdir())
    assert scenarios == ["charged", "cover", "default", "half_range", "stationary"]
    assert {len(scenario_files(release, s)) for s in scenarios} == {60}
    files = [str(p) for p in scenario_files(release, "default")]
    rows = (
        duckdb.connect()
        .execute(
            "SELECT filename, weapon_id, count(*) AS cells, min(file_row_number) AS first"
            " FROM read_parquet(?, filename = true, file_row_number = true) GROUP BY ALL ORDER BY filename, first",
            [files],
        )
        .fetchall()
    )
    by_file: dict[str, list[str]] = {}
    for filename, weapon_id, cells, _ in rows:
        assert cells == 3_006
        by_file.setdefault(filename, []).append(weapon_id)
    weapons = [by_file[f] for f in files]
    assert sum(map(len, weapons)) == 13_642
    assert (min(map(len, weapons)), max(map(len, weapons))) == (91, 248)
    runs: list[list[list[str]]] = []
    for file_weapons in weapons:
        if not runs or starts_file(file_weapons[0]):
            runs.append([])
        runs[-1].append(file_weapons)
    sizes = [sum(map(len, run)) for run in runs]
    assert (len(runs), min(sizes), max(sizes)) == (11, 91, 3_339)
    for run, size in zip(runs, sizes, strict=True):
        assert not any(starts_file(weapon) for w in run for weapon in w[1:]) and not any(
            starts_file(w[0]) for w in run[1:]
        )
        assert len(run) == -(-size // 256) and max(map(len, run)) - min(map(len, run)) <= 1
