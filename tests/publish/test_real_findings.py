"""Every findings category on real rows of the shared corpora (the real release the publish tests share),
and the explorer of that release. Each expected value was read in the input file at the location given.

`points_fall` and `self_check_shortfall` have no row in the current corpora: they are tested on a real
row altered by one value (the rule run on the release's own tables).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.findings import points, sources
from pipeline.publish.site.build import SITE_DIR
from pipeline.publish.site.safe import unit_path
from schemas.findings import CATEGORIES

pytestmark = pytest.mark.slow

#: (category, subject, a part of the message, the location, values) as read in the inputs.
REAL_ROWS = [
    # Datasheets_wargear.csv 863/893/3669: Brother-captain, Paladin Squad AP -2; Brotherhood Librarian AP -1.
    ("weapon_profile_differs", "Nemesis force weapon", "Melee A4 WS2+ S6 AP-1 D2 x1, Melee A4 WS2+ S6 AP-2 D2 x2",
     "wahapedia-10e/Datasheets_wargear.csv:863; wahapedia-10e/Datasheets_wargear.csv:893; "
     "wahapedia-10e/Datasheets_wargear.csv:3669", None),
    # Datasheets_wargear.csv 1489 / 5617 with heavy, 1628 without (Reaper launcher – starshot, 48" S10 AP-2 D3).
    ("weapon_abilities_differ", "Reaper launcher – starshot", "[heavy, ignores cover] x2",
     "wahapedia-10e/Datasheets_wargear.csv:1489; wahapedia-10e/Datasheets_wargear.csv:1628; "
     "wahapedia-10e/Datasheets_wargear.csv:5617", None),
    # Orks.cat: Big choppa profile a43a-... S 8, profile 7bb1-... S 7 (both on Ork datasheets).
    ("weapon_profile_differs", "Big choppa", "Melee A5 WS2+ S7 AP-1 D2 x3, Melee A5 WS2+ S8 AP-1 D2 x2",
     "bsdata-10e/Orks.cat:22013 (id a43a-fbb3-2a23-b3c5); bsdata-10e/Orks.cat:28189 (id 7bb1-71af-2951-a64e)", None),
    # The Chaos Rhino of the Chaos Space Marines catalogue (BS 3+) and of the World Eaters one (BS 4+).
    ("weapon_profile_in_datasheet", "Havoc launcher", "on Chaos Rhino (bsdata)",
     "bsdata-10e/Chaos - Chaos Space Marines.cat:14152 (id 6691-69f0-ca72-827d); "
     "bsdata-10e/Chaos - World Eaters.cat:5805 (id 0bbc-60b7-e869-01a8)", None),
    # Datasheets_models_cost.csv 1746-1747: 000003919|1|3 models|65| and 000003919|2|3 models|120|.
    ("points_size_twice", "3 models", "Ynnari Reavers: 3 models listed twice, at 65 and 120",
     "wahapedia-10e/Datasheets_models_cost.csv:1746; wahapedia-10e/Datasheets_models_cost.csv:1747",
     {"line 1746 (kept)": 65, "line 1747": 120}),
    # Datasheets_models.csv 939: 000002103|1|Command Squad|6"|4|3+|-||... (no invulnerable save).
    ("invuln_one_source", "Command Squad #2", "has an invulnerable save 4+ in bsdata:Imperium - Space Marines.cat",
     "wahapedia-10e/Datasheets_models.csv:939", None),
    # The Valkyrie's Hellstrike missiles (profile df36-..., in the Astra Militarum library) say `Anti-fly 2`.
    ("characteristic_typo", "Hellstrike missiles", "Valkyrie: Hellstrike missiles ability written 'Anti-fly 2'",
     "bsdata-10e/Imperium - Astra Militarum.cat:303 (id df36-2e98-f611-2630)",
     {"field": "abilities", "read_as": "anti-fly 2+", "written": "Anti-fly 2"}),
    # Tyranids.cat 76: the Mucolid Spores entry link; no weapon in either source.
    ("unit_without_weapons", "Mucolid Spores", "Mucolid Spores (Tyranids) has no weapon in any source",
     "bsdata-10e/Tyranids.cat:76 (id 707a-9de8-f75b-41c5); wahapedia-10e/Datasheets.csv:1516", None),
    # Einhyr Hearthguard: T 5 in the Leagues of Votann catalogue, 6 in Datasheets_models.csv.
    ("source_conflict", "model:Einhyr Hearthguard #2:toughness", "5 in bsdata:Leagues of Votann.cat, 6 in",
     "bsdata-10e/Leagues of Votann.cat:45; wahapedia-10e/Datasheets.csv:885",
     {"bsdata:Leagues of Votann.cat": "5", "wahapedia_csv:Datasheets_models.csv": "6"}),
]  # fmt: skip


@pytest.fixture(scope="module")
def findings(release: Path) -> pl.DataFrame:
    return pl.read_parquet(release / "findings.parquet")


@pytest.mark.parametrize(("category", "subject", "message", "location", "values"), REAL_ROWS)
def test_real_row(findings: pl.DataFrame, category: str, subject: str, message: str, location: str,
                  values: dict[str, Any] | None) -> None:  # fmt: skip
    rows = findings.filter(
        (pl.col("category") == category)
        & (pl.col("subject") == subject)
        & (pl.col("location") == location)
        & pl.col("message").str.contains(message, literal=True)
    ).to_dicts()
    assert len(rows) == 1, rows
    assert message in rows[0]["message"]
    if values is not None:
        assert json.loads(rows[0]["values"]) == values


def test_points_fall_on_a_real_row(release: Path) -> None:
    """Intercessor Squad (Datasheets_models_cost.csv 872-873: 5 models 80, 10 models 160), 10 models made 70."""
    frames = {name: pl.read_parquet(release / f"{name}.parquet") for name in ("datasheets", "points")}
    real = frames["points"].filter(pl.col("datasheet_id") == "wh:000001157").sort("models")
    assert real.select("models", "cost", "line").rows() == [(5, 80, 872), (10, 160, 873)]
    assert list(points.points_fall(frames)) == []
    cheaper = pl.when((pl.col("datasheet_id") == "wh:000001157") & (pl.col("models") == 10)).then(70)
    frames["points"] = frames["points"].with_columns(cheaper.otherwise(pl.col("cost")).alias("cost"))
    (found,) = points.points_fall(frames)
    assert found.values == {"5 models (5 models)": 80, "10 models (10 models)": 70}
    assert found.message == "Intercessor Squad: 10 models cost 70, less than 5 models at 80"


def test_self_check_shortfall_on_a_real_row(release: Path) -> None:
    checks = pl.read_parquet(release / "source_checks.parquet")
    assert list(sources.check_shortfalls({"source_checks": checks})) == []
    first = checks.sort("source_id", "check_name").head(1)
    short = first.with_columns(pl.col("unexplained") + 1, pl.lit('{"unexplained: lost": 1}').alias("reasons"))
    (found,) = sources.check_shortfalls({"source_checks": short})
    assert found.subject == first["check_name"][0] and found.values["unexplained: lost"] == 1


def test_every_category_has_a_real_case() -> None:
    tested = {row[0] for row in REAL_ROWS} | {"points_fall", "self_check_shortfall"}
    assert tested == set(CATEGORIES)


def test_real_site_has_every_unit_and_fits(release: Path) -> None:
    """A page per golden unit, and the issue's size limit (60 MB) for the three corpora."""
    site = release / SITE_DIR
    for unit_id in pl.read_parquet(release / "units.parquet")["unit_id"]:
        assert (site / unit_path(unit_id)).is_file()
    assert sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) <= 60_000_000
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["site"]["pages"] == len(list(site.rglob("*.html")))
