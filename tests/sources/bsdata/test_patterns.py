"""The catalogue patterns of issue 11 on real rows of the shared BSData folder.

Every expected value was read in the XML by hand; the file and line are noted by each case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.bsdata.parser import BsdataParser
from schemas.records import (
    Ability,
    Datasheet,
    ModelProfile,
    Points,
    QuarantineRow,
    Record,
    SourceCheck,
    Weapon,
    WeaponAbilityRow,
)
from tests.sources.bsdata.test_parser import children_of, datasheet, model, points, weapon

SM = "bsdata:Imperium - Space Marines.cat"
SW = "bsdata:Imperium - Space Wolves.cat"
AS = "bsdata:Imperium - Adepta Sororitas.cat"
ADMECH = "bsdata:Imperium - Adeptus Mechanicus.cat"
AGENTS = "bsdata:Imperium - Agents of the Imperium.cat"
UM = "bsdata:Imperium - Ultramarines.cat"
AM = "bsdata:Imperium - Astra Militarum.cat"
CSM = "bsdata:Chaos - Chaos Space Marines.cat"
DAEMONS = "bsdata:Chaos - Chaos Daemons Library.cat"
KNIGHTS = "bsdata:Chaos - Chaos Knights Library.cat"
ORKS = "bsdata:Orks.cat"
TAU = "bsdata:T'au Empire.cat"

pytestmark = pytest.mark.slow  # the whole shared BSData folder


@pytest.fixture(scope="module")
def parser() -> BsdataParser:
    return BsdataParser()


@pytest.fixture(scope="module")
def real(parser: BsdataParser, bsdata_dir: Path) -> list[Record]:
    return list(parser.parse(bsdata_dir))


def check_row(real: list[Record], source_id: str, check: str) -> SourceCheck:
    found = [r for r in real if isinstance(r, SourceCheck) and r.source_id == source_id and r.check_name == check]
    assert len(found) == 1
    return found[0]


# -- invulnerable saves ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source_id", "unit", "model_name", "expected"),
    [
        # bare `4+`: infoLink (Space Marines.cat 3041) to profile "Invulnerable Save", Description `4+` (38655)
        (SM, "Captain in Gravis Armour", "Captain in Gravis Armour", (4, None, None, None)),
        # "This model has an invulnerable save of 6+" (Adepta Sororitas.cat 3136)
        (AS, "Hospitaller", "Hospitaller", (6, None, None, None)),
        # profile spelled "Invunerable Save" (Library - Astartes Heresy Legends.cat 834), linked by CSM
        (CSM, "Deredeo Dreadnought [Legends]", "Deredeo Dreadnought", (5, None, None, None)),
        # "Invulnerable Save*": `4+` and "* This model has a 4+ invulnerable save against melee attacks."
        (SM, "Judiciar", "Judiciar", (4, "melee", None, None)),
        # "This model has a 5+ invulnerable save against ranged attacks." (Astra Militarum - Library.cat)
        (AM, "Gorgon Heavy Transport [Legends]", "Gorgon Heavy Transport", (5, "ranged", None, None)),
        # storm shields on both model entries of the group (Space Wolves.cat 10250): every model has one
        (SW, "Wulfen with Storm Shields", "Wulfen", (4, None, None, "Storm Shield (wargear)")),
        # storm shield in one of the Lieutenant's loadouts (Space Marines.cat 24388): optional, noted only
        (SM, "Lieutenant", "Lieutenant", (None, None, None, "4+ with Storm Shield (optional)")),
        # Endurant shield on one model type sharing the unit's statline (Agents of the Imperium.cat 1703)
        (
            AGENTS,
            "Imperial Navy Breachers",
            "Imperial Navy Breachers",
            (None, None, None, "4+ for Navis Armsman w/ heavy shotgun (Endurant shield)"),
        ),
    ],
)
def test_invulnerable_saves_in_every_form(
    real: list[Record], source_id: str, unit: str, model_name: str, expected: tuple[object, ...]
) -> None:
    profile = model(real, datasheet(real, source_id, unit), model_name)
    assert (profile.invuln, profile.invuln_condition, profile.invuln_melee, profile.invuln_note) == expected


def test_conditional_saves_are_not_statlines_and_are_explained(real: list[Record]) -> None:
    # Orks' Waaagh! rule: "once per battle ... until ...:" then "- Models ... have a 5+ invulnerable save."
    boyz = model(real, datasheet(real, ORKS, "Boyz"), "Boy")
    assert boyz.invuln is None
    reasons = check_row(real, ORKS, "invulns").reasons
    assert reasons.get("explained: conditional (if)", 0) >= 1  # "If your Army Faction is Orks, once per battle..."


# -- points by unit size ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source_id", "unit", "expected"),
    [
        # 80 pts; set 160 if the model group "Intercessors" (e371-...) holds atLeast 6 (Space Marines.cat 4626)
        (SM, "Intercessor Squad", [(5, 80), (10, 160)]),
        # 80; set 160 if group "Outriders" (3-6) atLeast 4; Invader ATV (0-1) costs 60 on top (14253)
        (SM, "Outrider Squad", [(3, 80), (4, 140), (6, 160), (7, 220)]),
        # equalTo 2 models -> 170, atLeast 3 -> 270, counting all models with the optional Shas'ui (T'au 6667)
        (TAU, "Broadside Battlesuits", [(1, 80), (2, 170), (3, 270)]),
        # increment 70 if greaterThan 4 models, again if greaterThan 8 (T'au 9271): 4 / 8 / 12 models
        (TAU, "Tactical Drones [Legends]", [(4, 70), (8, 140), (12, 210)]),
        # one of "1 Spanner and 4 Lootas" / "2 Spanners and 8 Lootas" (a group of two composite options)
        (ORKS, "Lootas", [(5, 50), (10, 100)]),
        # and-groups on two model entries: Headtakers equalTo 3 / atLeast 4, Hunting Wolves equalTo 0 / atLeast 1
        (SW, "Wolf Guard Headtakers", [(3, 85), (4, 110), (6, 170), (7, 220), (9, 220), (12, 220)]),
    ],
)
def test_points_from_modifiers_that_count_groups_and_models(
    real: list[Record], source_id: str, unit: str, expected: list[tuple[int, int]]
) -> None:
    assert points(real, datasheet(real, source_id, unit)) == expected


def test_an_add_on_is_a_priced_option_named_by_its_description(real: list[Record]) -> None:
    outriders = datasheet(real, SM, "Outrider Squad")
    described = {
        (p.models, p.cost, p.description) for p in children_of(real, Points, outriders) if isinstance(p, Points)
    }
    assert (4, 140, "3 models + Invader ATV") in described and (7, 220, "6 models + Invader ATV") in described


# -- Crusade-only content ----------------------------------------------------------------------------------------
def test_crusade_only_wargear_is_excluded_and_counted(real: list[Record], parser: BsdataParser) -> None:
    # Syntaxik Charger: Crusade (hidden unless the roster has a Crusade Force) -> Archeotech -> Legendary Archeotech
    charger = [w for w in real if isinstance(w, Weapon) and w.name == "Syntaxik Charger"]
    assert charger == []
    assert parser.stats[ADMECH].force_only_skipped > 0
    assert check_row(real, ADMECH, "weapons").reasons.get("explained: force-only: Crusade Force", 0) >= 1


def test_a_crusade_variant_unit_is_quarantined_not_published(real: list[Record]) -> None:
    # Space Wolves.cat 10347: a second "Wolf Guard Headtakers", "set hidden true" unless a Crusade Force
    rows = [r for r in real if isinstance(r, QuarantineRow) and r.source_id == SW and r.reason.startswith("force-only")]
    assert [r.reason for r in rows] == [
        "force-only: Crusade Force entry: 'Wolf Guard Headtakers' is not shown otherwise"
    ]


# -- unit profiles on groups, composition upgrades ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("source_id", "unit", "model_name", "statline"),
    [
        (SW, "Wulfen", "Wulfen", (9, 6, 4, 2, 7, 0)),  # Unit profile on group "Wulfen" (Space Wolves.cat 4404)
        (UM, "Victrix Honour Guard", "Victrix Honour Guard", (6, 4, 2, 3, 6, 2)),  # on its group (Ultramarines)
        # models reached through composition upgrades "5 models" / "10 models" that declare Crusade costs of 0
        (AGENTS, "Aquila Kill Team", "Kill Team Sergeant", (6, 4, 3, 2, 6, 2)),
    ],
)
def test_unit_profiles_found_on_groups(
    real: list[Record], source_id: str, unit: str, model_name: str, statline: tuple[int, ...]
) -> None:
    profile = model(real, datasheet(real, source_id, unit), model_name)
    values = (profile.movement, profile.toughness, profile.save, profile.wounds, profile.leadership, profile.oc)
    assert values == statline


def test_no_unit_with_a_statline_on_a_group_is_quarantined(real: list[Record]) -> None:
    missing = [r.reason for r in real if isinstance(r, QuarantineRow) and r.reason.startswith("no Unit profile")]
    assert missing == ["no Unit profile: 'Searchlight' has no statline"]  # Unaligned Forces: a terrain piece


# -- hidden entries an option un-hides -----------------------------------------------------------------------------
def test_hidden_weapons_an_option_unhides_are_published_with_the_option(real: list[Record]) -> None:
    # Chaos Daemons Library.cat 17619: group "Weapons" -> hidden group "Khorne" shown when "Daemon of Blood"
    # (326d-...) is selected; its ranged weapon "Infernal cannon"
    herald = datasheet(real, DAEMONS, "Daemonic Herald [Crucible]")
    unlocked = {
        (w.name, w.unlocked_by) for w in children_of(real, Weapon, herald) if isinstance(w, Weapon) and w.unlocked_by
    }
    assert ("Infernal cannon", "Daemon of Blood") in unlocked
    assert {option for _, option in unlocked} == {
        "Daemon of Blood",
        "Daemon of Change",
        "Daemon of Excess",
        "Daemon of Plague",
    }
    abilities = [a for a in children_of(real, Ability, herald) if isinstance(a, Ability) and a.unlocked_by]
    assert abilities


# -- dice characteristics and ability tokens -------------------------------------------------------------------------
def test_dice_strength_is_published(real: list[Record]) -> None:
    zzap = weapon(real, datasheet(real, ORKS, "Battlewagon"), "Zzap gun")  # Orks.cat 123: S `D6+6`
    assert (zzap.strength.text, zzap.row()["strength_mean"], zzap.ap, zzap.damage.text) == ("D6+6", 9.5, -3, "5")
    assert not any(isinstance(r, QuarantineRow) and "strength" in r.reason for r in real)


@pytest.mark.parametrize(
    ("source_id", "unit", "name", "raw", "normalised"),
    [
        (KNIGHTS, "Knight Despoiler", "Hellstorm autocannons", "Anti-FLY 2", "anti-fly 2+"),  # Knights Library 2165
        (AM, "Valkyrie", "Hellstrike missiles", "Anti-fly 2", "anti-fly 2+"),  # Astra Militarum - Library 29160
        (SM, "Ancient in Terminator Armor", "Chainfist", "Anti Vehicle 3+", "anti-vehicle 3+"),  # SM 36288
    ],
)
def test_ability_tokens_are_normalised_with_the_raw_text_kept(
    real: list[Record], source_id: str, unit: str, name: str, raw: str, normalised: str
) -> None:
    found = weapon(real, datasheet(real, source_id, unit), name)
    assert normalised in found.abilities
    rows = [r for r in real if isinstance(r, WeaponAbilityRow) and r.weapon_id == found.weapon_id]
    assert [(r.ability, r.raw) for r in rows if r.raw == raw] == [("anti", raw)]


# -- the self-check --------------------------------------------------------------------------------------------------
def test_every_catalogue_checks_itself(real: list[Record], bsdata_dir: Path) -> None:
    rows = [r for r in real if isinstance(r, SourceCheck)]
    files = {f"bsdata:{p.name}" for p in bsdata_dir.iterdir() if p.suffix in {".cat", ".gst"}}
    assert {(r.source_id, r.check_name) for r in rows} == {
        (f, c) for f in files for c in ("statlines", "weapons", "invulns", "points")
    }
    for row in rows:
        assert row.expected == row.published + row.explained + row.unexplained
        assert sum(row.reasons.values()) == row.explained + row.unexplained


@pytest.mark.parametrize(
    ("source_id", "check", "expected"),
    [
        # `grep -c 'typeName="Unit"' "Imperium - Ultramarines.cat"`: every Unit profile defined in the file
        (UM, "statlines", 21),
        # `grep -c 'typeName="\(Ranged\|Melee\) Weapons"' Orks.cat`
        (ORKS, "weapons", 226),
    ],
)
def test_expected_counts_come_from_the_xml(
    real: list[Record], bsdata_dir: Path, source_id: str, check: str, expected: int
) -> None:
    assert check_row(real, source_id, check).expected == expected


def test_published_datasheets_keep_their_statline(real: list[Record]) -> None:
    sheets = [r for r in real if isinstance(r, Datasheet)]
    with_statline = {m.datasheet_id for m in real if isinstance(m, ModelProfile)}
    assert all(s.datasheet_id in with_statline for s in sheets)
