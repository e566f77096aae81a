"""A small, complete dataset (real Warboss rows of the Wahapedia export, the Wazdakka
page export) stored with the real store, and the quality runs on it.

GX runs cost seconds each, so the runs are session-scoped: one on the good store,
one on a hand-broken copy (`BREAKS`), and the tests read their published reports.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline import config
from pipeline.dataset import Dataset
from pipeline.errors import QualityGateError
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.quality.report import QualitySummary
from pipeline.quality.stage import quality_gate
from pipeline.store.ddl import TABLE_MODELS, create_table_sql
from pipeline.store.tables import records_frame, weapon_ability_rows
from schemas.records import (
    Ability,
    Datasheet,
    Keyword,
    ModelProfile,
    Points,
    QuarantineRow,
    Record,
    ReferenceProfile,
    Rule,
    RuleOccurrence,
    Source,
    Stratagem,
    Weapon,
)

PAGE = "page_export:000_2e2c183ddf21453e.txt"
WH_SHEETS = "wahapedia_csv:Datasheets.csv"
WH_WARGEAR = "wahapedia_csv:Datasheets_wargear.csv"
WARBOSS = "wh:000000001"
WAZDAKKA = "page:orks:wazdakka-gutsmek"


def _source(source_id: str, rows_in: int, quarantined: int = 0) -> Source:
    fmt, name = source_id.split(":", 1)
    return Source(
        source_id=source_id,
        format=fmt,
        path=f"raw/{name}",
        sha256=hashlib.sha256(name.encode()).hexdigest(),
        rows_in=rows_in,
        rows_curated=rows_in - quarantined,
        rows_quarantined=quarantined,
    )


def _weapon(datasheet_id: str, source_id: str, line: int, row: str) -> Weapon:
    """`name|abilities|range|kind|A|skill|S|AP|D`, as in Datasheets_wargear.csv."""
    name, abilities, rng, kind, attacks, skill, strength, ap, damage = row.split("|")
    typed = parse_ability_list(abilities)
    return Weapon(
        weapon_id=f"{datasheet_id}:{kind.lower()}:{name.lower().replace(' ', '-')}",
        datasheet_id=datasheet_id,
        name=name,
        kind=kind.lower(),
        range_inches=None if rng == "Melee" else int(rng),
        attacks=attacks,
        skill=int(skill) if skill else None,
        strength=int(strength),
        ap=int(ap),
        damage=damage,
        abilities=[a.normalised for a in typed],
        typed_abilities=typed,
        source_id=source_id,
        line=line,
    )


WARBOSS_WARGEAR = (
    "Kombi-weapon|anti-infantry 4+, devastating wounds, rapid fire 1|24|Ranged|1|5|4|0|1",
    "Twin slugga|pistol, twin-linked|12|Ranged|2|5|4|0|1",
    "Attack squig|extra attacks|Melee|Melee|2|4|4|0|1",
    "Big choppa||Melee|Melee|5|2|8|-1|2",
    "Power klaw||Melee|Melee|4|3|10|-2|2",
)
WAZDAKKA_WARGEAR = (
    "Grabba dragga|assault, precision|12|Ranged|1|2|10|-2|3",
    "Psyko-gatler|assault, sustained hits 1|24|Ranged|12|4|6|-2|2",
    "Fixit's wrench|extra attacks|Melee|Melee|1|4|3|0|1",
    "Speeding bulk and flaming exhaust|extra attacks|Melee|Melee|6|2|5|-1|1",
)


def _unit(datasheet_id: str, source_id: str, name: str, cost: int, **stats: Any) -> list[Record]:
    return [
        Datasheet(
            datasheet_id=datasheet_id,
            source_id=source_id,
            faction="Orks",
            name=name,
            role="Characters",
            unit_id=f"orks:{name.lower().replace(' ', '-')}",
            line=1,
        ),
        ModelProfile(
            profile_id=f"{datasheet_id}:1",
            datasheet_id=datasheet_id,
            name=name,
            source_id=source_id,
            line=1,
            unit_size=1,
            keywords=["INFANTRY", "CHARACTER"],
            **stats,
        ),
        Points(datasheet_id=datasheet_id, models=1, cost=cost, description="1 model", source_id=source_id, line=1),
        Keyword(datasheet_id=datasheet_id, keyword="Orks", is_faction=True, source_id=source_id, line=1),
        Keyword(datasheet_id=datasheet_id, keyword="Character", source_id=source_id, line=2),
        Ability(datasheet_id=datasheet_id, name="Waaagh!", kind="faction", source_id=source_id, line=3),
    ]


def good_records() -> list[Record]:
    """Everything a release holds, small, complete and clean (no warning either)."""
    records: list[Record] = [
        _source(PAGE, rows_in=40, quarantined=1),
        _source(WH_SHEETS, rows_in=1),
        _source(WH_WARGEAR, rows_in=5),
        *_unit(
            WARBOSS,
            WH_SHEETS,
            "Warboss",
            75,
            movement=6,
            toughness=5,
            save=4,
            invuln=5,
            wounds=6,
            leadership=6,
            oc=1,
        ),
        *_unit(
            WAZDAKKA,
            PAGE,
            "Wazdakka Gutsmek",
            175,
            movement=14,
            toughness=6,
            save=4,
            wounds=8,
            leadership=6,
            oc=2,
            fnp=6,
        ),
        Ability(
            datasheet_id=WARBOSS,
            name="Might is Right",
            kind="datasheet",
            source_id=WH_SHEETS,
            line=3,
            text="While this model is leading a unit, add 1 to the Hit roll.",
            text_html="<p>While this model is leading a unit, add 1 to the <b>Hit roll</b>.</p>",
        ),
        Stratagem(
            stratagem_id="strat:core:insane-bravery",
            name="INSANE BRAVERY",
            cp=1,
            type="Epic Deed",
            detachment="Core",
            effect="Your unit automatically passes that Battle-shock test.",
            source_id=PAGE,
            line=40,
        ),
        Rule(
            rule_id="rule:deep-strike",
            title="Deep Strike",
            body='Set up anywhere more than 9" away.',
            content_hash="0f3a9c2e5b7d1e4f",
            occurrences=1,
        ),
        Rule(
            rule_id="rule:deep-strike-2",
            title="Deep Strike",
            body='Set up more than 9" away.',
            content_hash="a1b2c3d4e5f60718",
            variant_of="rule:deep-strike",
            occurrences=1,
        ),
        RuleOccurrence(rule_id="rule:deep-strike", source_id=PAGE, line=20),
        RuleOccurrence(rule_id="rule:deep-strike-2", source_id=PAGE, line=21),
        ReferenceProfile(
            profile_id="ref:meq",
            name="MEQ",
            toughness=4,
            save=3,
            wounds=2,
            unit_size=5,
            movement=6,
            leadership=6,
            oc=2,
        ),
        QuarantineRow(
            source_id=PAGE,
            line=12,
            stage="parse",
            reason="weapon row without profile",
            raw="| Grabba dragga lance | |||||||",
        ),
    ]
    records += [_weapon(WARBOSS, WH_WARGEAR, i, row) for i, row in enumerate(WARBOSS_WARGEAR, 1)]
    records += [_weapon(WAZDAKKA, PAGE, i, row) for i, row in enumerate(WAZDAKKA_WARGEAR, 2)]
    return records


#: Hand-made breaks, as SQL on a constraint-free copy of the good store.
BREAKS = (
    f"UPDATE model_profiles SET toughness = 0 WHERE datasheet_id = '{WARBOSS}'",
    "UPDATE weapons SET ap = 1 WHERE name = 'Big choppa'",
    "UPDATE weapons SET attacks = 'D7' WHERE name = 'Power klaw'",
    "INSERT INTO weapons SELECT * REPLACE ('wh:000000999:melee:choppa' AS weapon_id,"
    " 'wh:000000999' AS datasheet_id) FROM weapons WHERE name = 'Big choppa'",
    f"INSERT INTO keywords SELECT * FROM keywords WHERE datasheet_id = '{WARBOSS}' AND keyword = 'ORKS'",
    f"DELETE FROM points WHERE datasheet_id = '{WAZDAKKA}'",
    "UPDATE rules SET variant_of = 'rule:gone' WHERE rule_id = 'rule:deep-strike-2'",
    f"UPDATE sources SET rows_curated = rows_curated - 1 WHERE source_id = '{WH_SHEETS}'",
)
#: Tables left out of the broken copy (a run without them must still be checked).
LEFT_OUT = ("stratagems", "datasheet_stratagems")


def store_release(records: list[Record], release: Path) -> Path:
    """The store's DDL (types, keys, foreign keys) filled with the records as they are.

    The store's integrity pass (`build_frames`) is left out on purpose: these tests
    check the gates on exactly the rows written here.
    """
    parsed = Dataset(records)
    dataset = parsed.adding(weapon_ability_rows(parsed.records(Weapon)))
    release.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(release / config.DUCKDB_FILENAME))
    try:
        for model in TABLE_MODELS:
            con.execute(create_table_sql(model))
            arrow = records_frame(model, dataset.table(model.TABLE)).to_arrow()  # noqa: F841
            con.execute(f"INSERT INTO {model.TABLE} SELECT * FROM arrow")
    finally:
        con.close()
    return release


def break_copy(good_db: Path, release: Path) -> Path:
    """Copy the store without its keys (so duplicates and orphans can exist), then break it."""
    release.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(release / config.DUCKDB_FILENAME))
    try:
        con.execute("ATTACH ? AS good (READ_ONLY)", [str(good_db)])
        tables = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'good' ORDER BY table_name"
        ).fetchall()
        for (table,) in tables:
            if table not in LEFT_OUT:
                con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM good."{table}"')
        con.execute("DETACH good")
        for statement in BREAKS:
            con.execute(statement)
    finally:
        con.close()
    return release


@pytest.fixture(scope="session")
def good_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_release(good_records(), tmp_path_factory.mktemp("good"))


@pytest.fixture(scope="session")
def good_gate(good_release: Path) -> QualitySummary:
    """The pipeline's gate on the good release: summary and page written."""
    return quality_gate(good_release)


@pytest.fixture(scope="session")
def broken_gate(good_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The gate on the broken copy: (its error message, its release folder)."""
    release = break_copy(good_release / config.DUCKDB_FILENAME, tmp_path_factory.mktemp("broken"))
    with pytest.raises(QualityGateError) as caught:
        quality_gate(release)
    yield str(caught.value), release


def summary(release: Path) -> dict[str, Any]:
    return dict(json.loads((release / "quality" / "summary.json").read_text(encoding="utf-8")))


def failures(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(table, expectation) -> outcome, for every failed expectation of a summary."""
    return {
        (table, e["expectation"]): e
        for table, t in report["tables"].items()
        for e in t["expectations"]
        if not e["success"]
    }
