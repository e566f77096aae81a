"""Each issue-11 pattern in a form the shared catalogues do not use (fixtures/bsdata/patterns, read its header),
and XML the parser must survive: deep nesting, entity references."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.bsdata.parser import BsdataParser
from schemas.records import ModelProfile, Points, QuarantineRow, Record, SourceCheck, Weapon, WeaponAbilityRow
from tests.sources.bsdata.catalogues import nested, unit_catalogue

PATTERNS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "bsdata" / "patterns"
CAT = "bsdata:Patterns.cat"


@pytest.fixture(scope="module")
def parser() -> BsdataParser:
    return BsdataParser()


@pytest.fixture(scope="module")
def built(parser: BsdataParser) -> list[Record]:
    return list(parser.parse(PATTERNS))


def profile(records: list[Record], profile_id: str) -> ModelProfile:
    found = [r for r in records if isinstance(r, ModelProfile) and r.profile_id == profile_id]
    assert len(found) == 1
    return found[0]


def weapon(records: list[Record], weapon_id: str) -> Weapon:
    found = [r for r in records if isinstance(r, Weapon) and r.weapon_id == weapon_id]
    assert len(found) == 1
    return found[0]


def options(records: list[Record], datasheet_id: str) -> list[tuple[int, int, str]]:
    return sorted(
        (p.models, p.cost, p.description) for p in records if isinstance(p, Points) and p.datasheet_id == datasheet_id
    )


@pytest.mark.parametrize(
    ("profile_id", "expected"),
    [
        # characteristic "Inv. Sv" 5+ on a Unit profile nested two groups deep
        ("bs:pat-1:u-sentinel:p-champion", (5, None, None, None)),
        # "Invlunerable Ward": 4+ against shooting; 3+ against close combat
        ("bs:pat-1:u-keeper:p-keeper", (4, "ranged", 3, None)),
        # wargear two entries down under a required group with one member: in every loadout
        ("bs:pat-1:u-bastion:p-bastion", (5, None, None, "Bulwark Plate (wargear)")),
        # "Once per battle ... until the end of the phase ... 3+": conditional, not the statline
        # "an invulnerable saving throw of four or more": not read (the self-check reports it)
        ("bs:pat-1:u-oddity:p-oddity", (None, None, None, None)),
    ],
)
def test_invulnerable_saves_in_unseen_forms(built: list[Record], profile_id: str, expected: tuple[object, ...]) -> None:
    found = profile(built, profile_id)
    assert (found.invuln, found.invuln_condition, found.invuln_melee, found.invuln_note) == expected


@pytest.mark.parametrize(
    ("datasheet_id", "expected"),
    [
        # 120, decrement 60 when group "Harriers" (4-8) counts lessThan 5 OR a roster-wide selection (undecidable);
        # Beast Handlers (0-2 in an optional group) cost 15 each: priced with one and with two
        (
            "bs:pat-1:u-harrier",
            [
                (4, 60, "4 models"),
                (5, 75, "4 models + Handlers"),
                (6, 90, "4 models + 2 Handlers"),
                (8, 120, "8 models"),
                (9, 135, "8 models + Handlers"),
                (10, 150, "8 models + 2 Handlers"),
            ],
        ),
        # 40, +5 per 2 models rounded up once over 10 models (10-13): 11-12 models 70, 13 models 75
        ("bs:pat-1:u-swarm", [(10, 40, "10 models"), (12, 70, "12 models"), (13, 75, "13 models")]),
    ],
)
def test_points_from_unseen_modifier_shapes(
    built: list[Record], datasheet_id: str, expected: list[tuple[int, int, str]]
) -> None:
    assert options(built, datasheet_id) == expected


@pytest.mark.parametrize(
    ("profile_id", "unit_size"),
    [
        ("bs:pat-1:u-keeper:p-keeper", 1),  # a root entry of type model: one model
        ("bs:pat-1:u-bastion:p-bastion", 5),  # Bastion Trooper min 5
        ("bs:pat-1:u-harrier:p-harrier", 4),  # group Harriers min 4; the Handlers are an add-on
    ],
)
def test_unit_size_is_the_smallest_composition(built: list[Record], profile_id: str, unit_size: int) -> None:
    assert profile(built, profile_id).unit_size == unit_size


def test_force_only_group_in_an_or_group_is_excluded(built: list[Record]) -> None:
    names = {r.name for r in built if isinstance(r, Weapon) and r.datasheet_id == "bs:pat-1:u-sentinel"}
    assert names == {"Scatter cannon"}  # not the Trophy Blaster of the "Saga Spoils" group


def test_hidden_group_an_option_unhides_is_published_and_marked(built: list[Record]) -> None:
    lance = weapon(built, "bs:pat-1:u-keeper:p-relic")
    assert (lance.unlocked_by, lance.abilities) == ("Relic Bearer", ["lance"])
    assert weapon(built, "bs:pat-1:u-keeper:p-maul").unlocked_by is None


def test_dice_strength_stray_plus_and_anti_tokens(built: list[Record], parser: BsdataParser) -> None:
    scatter = weapon(built, "bs:pat-1:u-sentinel:p-scatter")
    assert (scatter.strength.text, scatter.row()["strength_mean"], scatter.abilities) == (
        "D3+3",
        5.0,
        ["anti-monster 4+"],
    )
    anti = [r for r in built if isinstance(r, WeaponAbilityRow) and r.weapon_id == scatter.weapon_id]
    assert [(a.value, a.keyword, a.raw) for a in anti] == [("4+", "MONSTER", "Anti Monster 4")]
    maul = weapon(built, "bs:pat-1:u-keeper:p-maul")
    assert maul.strength.text == "8"
    findings = [f.as_dict() for f in parser.stats[CAT].findings]
    assert findings == [
        {"kind": "read loosely", "line": 142, "table": "weapons", "field": "s", "raw": "8+", "read_as": "8",
         "where": "profile 'Power maul' of unit 'Ward Keeper'"},
    ]  # fmt: skip


def test_the_self_check_reports_the_unread_save(built: list[Record]) -> None:
    checks = {r.check_name: r for r in built if isinstance(r, SourceCheck) and r.source_id == CAT}
    invulns = checks["invulns"]
    # 5 mentions: the Inv. Sv characteristic, the Ward, Stand Fast, the Bulwark Plate, the Strange Aegis
    assert (invulns.expected, invulns.published, invulns.explained, invulns.unexplained) == (5, 3, 1, 1)
    assert invulns.reasons == {
        "explained: conditional (once per)": 1,
        "unexplained: mentions an invulnerable save, no value read": 1,
    }
    weapons = checks["weapons"]
    assert (weapons.expected, weapons.published, weapons.reasons) == (4, 3, {"explained: force-only: Saga Campaign": 1})
    points = checks["points"]  # costs 90, 75, 100, 120, 15, 40, 30 and the 2 modifiers: all priced
    assert (points.expected, points.published, points.unexplained) == (9, 9, 0)


# -- XML the parser must survive --------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [400, 1000])
def test_deep_nesting_is_walked_without_a_recursion_limit(tmp_path: Path, depth: int) -> None:
    (tmp_path / "Built.cat").write_text(unit_catalogue(nested(depth)), encoding="utf-8")
    records = list(BsdataParser().parse(tmp_path))
    assert [r.name for r in records if isinstance(r, Weapon)] == ["Deep gun"]


def test_nesting_beyond_the_xml_parser_limit_is_quarantined_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "Built.cat").write_text(unit_catalogue(nested(3000)), encoding="utf-8")
    rows = [r for r in BsdataParser().parse(tmp_path) if isinstance(r, QuarantineRow)]
    assert len(rows) == 1 and rows[0].reason.startswith("malformed XML: Excessive depth in document")


def test_entity_references_keep_the_text_and_load_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    head = f'<!DOCTYPE catalogue [<!ENTITY kw "Warlord"><!ENTITY leak SYSTEM "{secret.as_uri()}">]>'
    rule = (
        '<rules><rule id="r-1" name="Entity Rule"><description>Before &kw; after, then &leak; and the end.'
        "</description></rule></rules>"
    )
    (tmp_path / "Built.cat").write_text(unit_catalogue(rule, head), encoding="utf-8")
    records = list(BsdataParser().parse(tmp_path))
    texts = [
        getattr(r, "text", None) or getattr(r, "body", None)
        for r in records
        if type(r).__name__ in {"Ability", "RuleBlock"}
    ]
    assert set(texts) == {"Before &kw; after, then &leak; and the end."}
    assert not any("TOP SECRET" in str(r.model_dump()) for r in records)
