"""Golden records, conflicts and borrowed statlines on hand-made units."""

from __future__ import annotations

from pipeline.reconcile.composition import parse_lines
from pipeline.reconcile.golden import UnitContext, reconcile_unit
from pipeline.reconcile.matching import resolve_units
from pipeline.reconcile.member import Member
from schemas.records import Record, SourceConflict
from tests.reconcile.builders import golden_of, keywords, members, points, profile, sheet, statline, weapon

BS_SOURCE = "bsdata:Orks.cat"


def _unit(*records: Record) -> tuple[list[Member], dict[str, SourceConflict]]:
    found = members(*records)
    outcome = golden_of(found)
    return found, {c.field: c for c in outcome.conflicts}


def test_freshest_statline_wins_with_provenance_and_conflict() -> None:
    bs = sheet("bsdata", "Orks", "Boss", source_id=BS_SOURCE)
    wh = sheet("wahapedia_csv", "Orks", "Boss", date="2025-07-09")
    found = members(bs, wh, statline(bs, toughness=6, invuln=4, invuln_condition="melee"), statline(wh, invuln=5),
                    points(bs, 1, 80), points(wh, 1, 90), points(wh, 2, 150))  # fmt: skip
    outcome = golden_of(found)
    unit = outcome.unit
    assert (unit.toughness, unit.invuln, unit.invuln_condition, unit.points, unit.points_models) == (
        6,
        4,
        "melee",
        80,
        1,
    )
    assert unit.datasheet_ids == [bs.datasheet_id, wh.datasheet_id]
    assert unit.provenance["toughness"].startswith(f"{BS_SOURCE} (freshest source (2026-06-01")
    assert unit.provenance["save"] == f"{BS_SOURCE} (2 sources agree)"
    conflicts = {c.field: c for c in outcome.conflicts}
    assert sorted(conflicts) == ["invuln", "invuln_condition", "points", "toughness"]
    assert conflicts["toughness"].values == {BS_SOURCE: "6", "wahapedia_csv:Datasheets.csv": "4"}
    assert conflicts["invuln"].values == {BS_SOURCE: "4+", "wahapedia_csv:Datasheets.csv": "5+"}
    assert conflicts["invuln_condition"].values == {BS_SOURCE: "melee", "wahapedia_csv:Datasheets.csv": "any"}


def test_page_profile_without_statline_borrows_the_golden_one() -> None:
    page = sheet("page_export", "Orks", "Boss")
    wh = sheet("wahapedia_csv", "Orks", "Boss")
    bs = sheet("bsdata", "Orks", "Boss", source_id=BS_SOURCE)
    bare = profile(page, invuln=6)
    found = members(page, wh, bs, bare, statline(wh, oc=2, leadership=7), statline(bs, oc=3))
    outcome = golden_of(found)
    filled = outcome.filled[id(bare)]
    assert (filled.toughness, filled.save, filled.wounds, filled.oc, filled.leadership) == (4, 3, 2, 3, 6)
    assert filled.invuln == 6  # the page's own value is kept
    assert filled.stats_from == f"{BS_SOURCE}: movement, toughness, save, wounds, leadership, oc"
    assert filled.has_statline


def test_weapon_conflicts_only_for_matched_weapons() -> None:
    page = sheet("page_export", "World Eaters", "Lord Invocatus")
    wh = sheet("wahapedia_csv", "World Eaters", "Lord Invocatus")
    found = members(page, wh, weapon(page, "Bolt pistol", skill=2), weapon(wh, "Bolt pistol", skill=3),
                    weapon(page, "Juggernaut’s bladed horn", "melee", ap=-1),
                    weapon(wh, "Bladed horn", "melee", ap=-1, abilities=["lance"]),
                    weapon(wh, "Plasma gun", strength=8))  # fmt: skip
    conflicts = {c.field: c for c in golden_of(found).conflicts}
    assert sorted(conflicts) == ["weapon:Bladed horn:abilities", "weapon:Bolt pistol:skill"]
    skill = conflicts["weapon:Bolt pistol:skill"]
    assert (skill.chosen, skill.chosen_source) == ("3+", "wahapedia_csv:Datasheets.csv")
    assert skill.values == {"wahapedia_csv:Datasheets.csv": "3+", "page_export:p.txt": "2+"}
    assert conflicts["weapon:Bladed horn:abilities"].values["page_export:p.txt"] == "none"


def test_weapon_provenance_says_whether_other_sources_agree() -> None:
    page = sheet("page_export", "World Eaters", "Lord Invocatus")
    wh = sheet("wahapedia_csv", "World Eaters", "Lord Invocatus")
    found = members(page, wh, weapon(page, "Bolt pistol", skill=2), weapon(wh, "Bolt pistol", skill=3),
                    weapon(wh, "Plasma gun", strength=8))  # fmt: skip
    weapons = {w.name: w.provenance for w in golden_of(found).weapons}
    wh_source = "wahapedia_csv:Datasheets.csv"
    assert weapons["Plasma gun"]["strength"] == f"{wh_source} (only source)"
    assert weapons["Bolt pistol"]["strength"] == f"{wh_source} (2 sources agree)"
    assert weapons["Bolt pistol"]["skill"].startswith(f"{wh_source} (freshest source (")
    assert weapons["Bolt pistol"]["skill"].endswith("disagreeing: page_export:p.txt (date unknown))")


def test_main_profiles_are_matched_by_name_whatever_their_order() -> None:
    wh = sheet("wahapedia_csv", "Astra Militarum", "Catachan Command Squad")
    bs = sheet("bsdata", "Astra Militarum", "Catachan Command Squad", source_id="bsdata:AM.cat")
    wh_models = [statline(wh, "CATACHAN COMMANDER", wounds=3), statline(wh, "VETERAN GUARDSMAN", wounds=1)]
    bs_models = [statline(bs, "Veteran Guardsman", wounds=1), statline(bs, "Catachan Commander", wounds=3)]
    found = members(wh, bs, *wh_models, *bs_models)
    outcome = golden_of(found)
    assert outcome.conflicts == []
    # No model is named like the unit: its statline is the model the freshest source lists first.
    assert outcome.unit.wounds == 1
    changed = members(wh, bs, statline(wh, "CATACHAN COMMANDER", wounds=4), statline(bs, "Catachan Commander"))
    conflict = golden_of(changed).conflicts
    assert [(c.field, c.values) for c in conflict] == [
        ("wounds", {"bsdata:AM.cat": "2", "wahapedia_csv:Datasheets.csv": "4"})
    ]


def test_own_invulnerable_save_keeps_its_own_condition() -> None:
    page = sheet("page_export", "Orks", "Boss")
    bs = sheet("bsdata", "Orks", "Boss", source_id=BS_SOURCE)
    bare, unmatched = profile(page, invuln=5), profile(page, "Grot Oiler")
    found = members(page, bs, bare, unmatched, statline(bs, invuln=4, invuln_condition="ranged"))
    outcome = golden_of(found)
    filled = outcome.filled[id(bare)]
    assert (filled.toughness, filled.invuln, filled.invuln_condition) == (4, 5, None)
    assert id(unmatched) not in outcome.filled  # no source has a Grot Oiler statline


def test_profiles_are_matched_by_values_when_sources_split_models_differently() -> None:
    """BSData names three models, Wahapedia one `OTHER MODELS` line with the same values:
    no conflict, and each golden profile lists the Wahapedia profile it matched."""
    bs = sheet("bsdata", "Heretic Astartes", "Dark Commune", source_id="bsdata:Chaos - Chaos Space Marines.cat")
    wh = sheet("wahapedia_csv", "Chaos Space Marines", "Dark Commune")
    bs_models = [statline(bs, n, wounds=1, leadership=7) for n in ("Blessed Blade", "Iconarch", "Mindwitch")]
    wh_models = [statline(wh, "CULT DEMAGOGUE", wounds=4), statline(wh, "OTHER MODELS", wounds=1, leadership=7)]
    outcome = golden_of(members(bs, wh, *bs_models, statline(bs, "Cult Demagogue", wounds=4), *wh_models))
    assert outcome.conflicts == []
    rows = {p.profile_name: p for p in outcome.profiles}
    assert sorted(rows) == ["Blessed Blade", "Cult Demagogue", "Iconarch", "Mindwitch"]
    assert rows["Iconarch"].profile_ids == [bs_models[1].profile_id, wh_models[1].profile_id]
    assert rows["Cult Demagogue"].wounds == 4


def test_a_one_profile_source_joins_the_profiles_with_its_values_not_the_first_one() -> None:
    """Terminator Assault Squad: Wahapedia's one W3 profile is not BSData's storm-shield (W4) one."""
    bs = sheet("bsdata", "Adeptus Astartes", "Terminator Assault Squad", source_id="bsdata:SM.cat")
    wh = sheet("wahapedia_csv", "Space Marines", "Terminator Assault Squad")
    shield = statline(bs, "Assault Terminator w/ Storm Shield", wounds=4)
    claws = statline(bs, "Assault Terminator w/ Lightning Claws", wounds=3)
    sergeant = statline(bs, "Assault Terminator Sergeant", wounds=3)
    squad = statline(wh, "Terminator Assault Squad", wounds=3, invuln=4)
    outcome = golden_of(members(bs, wh, shield, claws, sergeant, squad))
    assert outcome.conflicts == []
    rows = {p.profile_name: p for p in outcome.profiles}
    assert rows["Assault Terminator w/ Storm Shield"].profile_ids == [shield.profile_id]
    assert rows["Assault Terminator w/ Lightning Claws"].invuln == 4  # the only source with an invuln
    main = next(p for p in outcome.profiles if p.position == 1)
    assert (main.profile_name, outcome.unit.wounds) == ("Assault Terminator w/ Lightning Claws", 3)


def test_a_renamed_model_spelled_alike_still_conflicts() -> None:
    bs = sheet("bsdata", "Leagues of Votann", "Brokhyr Iron-master", source_id="bsdata:Leagues of Votann.cat")
    wh = sheet("wahapedia_csv", "Leagues of Votann", "Brokhyr Iron-master")
    found = members(bs, wh, statline(bs, "Ironkyn Assistant", wounds=1), statline(wh, "IRONKIN ASSISTANT", wounds=2))
    conflicts = {c.field: c.values for c in golden_of(found).conflicts}
    assert conflicts == {"wounds": {"bsdata:Leagues of Votann.cat": "1", "wahapedia_csv:Datasheets.csv": "2"}}


def test_points_options_composition_and_role() -> None:
    wh = sheet("wahapedia_csv", "Space Marines", "Terminator Squad", role="Other")
    bs = sheet("bsdata", "Adeptus Astartes", "Terminator Squad", source_id="bsdata:SM.cat", role="Infantry")
    records = [wh, bs, statline(wh, "Terminator Sergeant"), statline(wh, "Terminator"), points(wh, 5, 170),
               points(wh, 10, 340), points(bs, 5, 180), *keywords(bs, "Battleline", faction=False)]  # fmt: skip
    found = members(*records)
    (unit,) = resolve_units(found)
    context = UnitContext(faction_names={}, composition={wh.datasheet_id: parse_lines(["1 Terminator Sergeant",
                                                                                      "4-9 Terminators"])})  # fmt: skip
    outcome = reconcile_unit(unit, context)
    options = {(p.models, p.cost, p.datasheet_id, str(p.composition)) for p in outcome.points}
    assert options == {
        (5, 180, bs.datasheet_id, "{'Terminator Sergeant': 1, 'Terminator': 4}"),
        (10, 340, wh.datasheet_id, "{'Terminator Sergeant': 1, 'Terminator': 9}"),
    }
    assert (outcome.unit.role, outcome.unit.role_source) == ("Battleline", "Infantry")
    assert outcome.unit.provenance["role"].startswith("bsdata:SM.cat (freshest source")


def test_a_name_the_fresher_source_repeats_is_matched_to_every_repeat() -> None:
    """BSData lists `Kill Team Veteran` twice (and `Kill Team Veteran w/ Jump Pack`); Wahapedia's
    `KILL TEAM VETERANS` is both repeats, not the jump-pack model its name also begins."""
    bs = sheet("bsdata", "Agents of the Imperium", "Proteus Kill Team", source_id="bsdata:AoI.cat")
    wh = sheet("wahapedia_csv", "Imperial Agents", "Proteus Kill Team")
    jump = statline(bs, "Kill Team Veteran w/ Jump Pack", movement=12, oc=2)
    first, second = statline(bs, "Kill Team Veteran", oc=2), statline(bs, "Kill Team Veteran", oc=2)
    veterans = statline(wh, "KILL TEAM VETERANS", oc=1)
    outcome = golden_of(members(bs, wh, jump, first, second, veterans))
    joined = {p.profile_name: p.profile_ids for p in outcome.profiles}
    assert joined["Kill Team Veteran w/ Jump Pack"] == [jump.profile_id]
    assert veterans.profile_id in joined["Kill Team Veteran"] and veterans.profile_id in joined["Kill Team Veteran #2"]
    # The first Veteran profile is the main one (shared by the most datasheets): its conflict is `oc`.
    assert {c.field for c in outcome.conflicts} == {"oc", "model:Kill Team Veteran #2:oc"}


def test_a_second_weapon_of_a_name_with_another_profile_is_a_golden_weapon_of_its_own() -> None:
    """A sergeant's Missile pod at BS3 beside the squad's at BS5 in one datasheet: two golden weapons; a third with
    the squad's profile again adds none."""
    wh = sheet("wahapedia_csv", "T'au Empire", "Stealth Battlesuits")
    squad = weapon(wh, "Missile pod", skill=5)
    sergeant = weapon(wh, "Missile pod", skill=3).model_copy(update={"weapon_id": f"{squad.weapon_id}:2"})
    again = weapon(wh, "Missile pod", skill=5).model_copy(update={"weapon_id": f"{squad.weapon_id}:3"})
    weapons = golden_of(members(wh, squad, sergeant, again)).weapons
    assert [(w.weapon_id, w.skill) for w in weapons] == [(squad.weapon_id, 5), (sergeant.weapon_id, 3)]
