"""BSData catalogue parser: hand-made fixtures for the edge cases, the real catalogues for the values.

Every expected value on real data was read in the XML by hand (profile line numbers noted).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.errors import InputFormatError
from pipeline.sources.bsdata.parser import BsdataParser, parse
from schemas.records import (
    Ability,
    Datasheet,
    Keyword,
    ModelProfile,
    Points,
    QuarantineRow,
    Record,
    RuleBlock,
    Source,
    Weapon,
)

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "bsdata"
ARMY = FIXTURES / "army"
BROKEN = FIXTURES / "broken"


# -- helpers ------------------------------------------------------------------------
def of_type(records: list[Record], kind: type[Record], source_id: str | None = None) -> list[Record]:
    return [r for r in records if isinstance(r, kind) and (source_id is None or r.source_id == source_id)]


def datasheet(records: list[Record], source_id: str, name: str) -> Datasheet:
    found = [r for r in of_type(records, Datasheet, source_id) if isinstance(r, Datasheet) and r.name == name]
    assert len(found) == 1, f"{name} in {source_id}: {len(found)} datasheets"
    return found[0]


def children_of(records: list[Record], kind: type[Record], sheet: Datasheet) -> list[Record]:
    return [r for r in records if isinstance(r, kind) and getattr(r, "datasheet_id", None) == sheet.datasheet_id]


def weapon(records: list[Record], sheet: Datasheet, name: str) -> Weapon:
    found = [w for w in children_of(records, Weapon, sheet) if isinstance(w, Weapon) and w.name == name]
    assert found, f"no weapon {name!r} on {sheet.name}"
    return found[0]


def model(records: list[Record], sheet: Datasheet, name: str) -> ModelProfile:
    found = [m for m in children_of(records, ModelProfile, sheet) if isinstance(m, ModelProfile) and m.name == name]
    assert len(found) == 1, f"model {name!r} on {sheet.name}: {len(found)}"
    return found[0]


def points(records: list[Record], sheet: Datasheet) -> list[tuple[int, int]]:
    return sorted((p.models, p.cost) for p in children_of(records, Points, sheet) if isinstance(p, Points))


def reasons(records: list[Record], source_id: str) -> list[str]:
    return [r.reason for r in of_type(records, QuarantineRow, source_id) if isinstance(r, QuarantineRow)]


def assert_accounting(records: list[Record]) -> None:
    """Each Source's counts agree with each other and with the records actually emitted."""
    for source in of_type(records, Source):
        assert isinstance(source, Source)
        sid = source.source_id
        curated = len(of_type(records, Datasheet, sid)) + len(of_type(records, RuleBlock, sid))
        assert source.rows_in == source.rows_curated + source.rows_quarantined, sid
        assert source.rows_quarantined == len(of_type(records, QuarantineRow, sid)), sid
        assert source.rows_curated == curated, sid


# -- hand-made fixtures ------------------------------------------------------------
@pytest.fixture(scope="module")
def army() -> list[Record]:
    return list(parse(ARMY))


@pytest.fixture(scope="module")
def broken() -> list[Record]:
    return list(parse(BROKEN))


@pytest.mark.parametrize(
    ("folder", "source_id", "rows_in", "curated", "quarantined"),
    [
        (ARMY, "bsdata:Test Army.cat", 12, 3, 9),
        (ARMY, "bsdata:Test Library.cat", 1, 1, 0),
        (ARMY, "bsdata:Test System.gst", 3, 3, 0),
        (BROKEN, "bsdata:Broken.cat", 1, 0, 1),
        (BROKEN, "bsdata:Linker.cat", 4, 1, 3),
    ],
)
def test_fixture_accounting(folder: Path, source_id: str, rows_in: int, curated: int, quarantined: int) -> None:
    records = list(parse(folder))
    sources = [s for s in of_type(records, Source) if s.source_id == source_id]
    assert len(sources) == 1
    source = sources[0]
    assert isinstance(source, Source)
    assert (source.rows_in, source.rows_curated, source.rows_quarantined) == (rows_in, curated, quarantined)
    assert source.format == "bsdata" and len(source.sha256) == 64
    assert_accounting(records)


def test_fixture_quarantine_reasons(army: list[Record]) -> None:
    rows = {(r.line, r.reason.split(":")[0]) for r in of_type(army, QuarantineRow) if isinstance(r, QuarantineRow)}
    assert rows == {
        (20, "unresolved link"),  # catalogueLink to Missing Library
        (32, "unresolved link"),  # root entryLink Ghost Tank
        (33, "hidden entry"),  # Secret Unit
        (34, "duplicate entry"),  # Test Squad a second time
        (35, "no Unit profile"),  # Objective Marker
        (81, "unresolved link"),  # infoLink Lost Rule inside Test Squad
        (242, "weapons"),  # Broken gun of Test Squad: Strength "*"
        (278, "hidden entry"),  # Secret Rule
        (281, "duplicate entry"),  # Army Rule id again
    }
    assert any("Missing Library" in r and "not in folder" in r for r in reasons(army, "bsdata:Test Army.cat"))
    assert (
        "weapons: strength: Value error, not a dice expression: '*' (profile 'Broken gun' of unit 'Test Squad')"
    ) in reasons(army, "bsdata:Test Army.cat")


def test_fixture_unit_with_two_model_types(army: list[Record]) -> None:
    squad = datasheet(army, "bsdata:Test Army.cat", "Test Squad")
    assert (squad.faction, squad.role, squad.datasheet_id) == (
        "Test Army",
        "Battleline",
        "bs:army-1:se-squad",
    )
    sergeant = model(army, squad, "Test Sergeant")
    trooper = model(army, squad, "Test Trooper")
    assert (sergeant.movement, sergeant.toughness, sergeant.save, sergeant.wounds) == (6, 4, 3, 2)
    assert (sergeant.leadership, sergeant.oc) == (6, 1)
    assert (trooper.save, trooper.wounds, trooper.leadership, trooper.oc) == (4, 1, 7, 2)
    for profile in (sergeant, trooper):
        assert (profile.invuln, profile.invuln_condition, profile.unit_size) == (5, "ranged", 5)
        assert {"TEST ARMY", "INFANTRY", "BATTLELINE"} <= set(profile.keywords)
    # base cost at 1 + 4 models; `greaterThan 5` is the open-ended top tier -> max 1 + 9 models;
    # the detachment-conditioned modifier (999) is not a size tier.
    assert points(army, squad) == [(5, 100), (10, 190)]


def test_fixture_weapons_and_abilities(army: list[Record]) -> None:
    squad = datasheet(army, "bsdata:Test Army.cat", "Test Squad")
    rifle = weapon(army, squad, "Test rifle")  # profile named "➤ Test rifle"
    assert (rifle.kind, rifle.range_inches, rifle.attacks.text, rifle.skill) == ("ranged", 24, "2", 4)
    assert (rifle.strength.text, rifle.ap, rifle.damage.text) == ("4", -1, "1")
    assert rifle.abilities == ["rapid fire 1", "anti-infantry 4+"]
    sword = weapon(army, squad, "Power sword")
    assert (sword.kind, sword.range_inches, sword.skill, sword.abilities) == ("melee", None, 3, [])
    names = {w.name for w in children_of(army, Weapon, squad) if isinstance(w, Weapon)}
    assert names == {"Test rifle", "Power sword", "Test pistol"}  # Broken gun is quarantined
    abilities = {(a.name, a.kind, a.parameter) for a in children_of(army, Ability, squad) if isinstance(a, Ability)}
    assert abilities == {
        ("Invulnerable Save", "datasheet", None),
        ("Stubborn", "datasheet", None),
        ("Banner", "wargear", None),
        ("Deep Strike", "core", None),
        ("Scouts", "core", '6"'),
        ("Army Rule", "faction", None),
    }  # not: Pistol (a weapon's rule), Shiny Relic, Heroic Honour, Boarding Trick (purchases)
    stubborn = [a for a in children_of(army, Ability, squad) if isinstance(a, Ability) and a.name == "Stubborn"]
    assert stubborn[0].text == "Each time this unit takes a Battle-shock test, add 1 to it."
    keywords = {(k.keyword, k.is_faction) for k in children_of(army, Keyword, squad) if isinstance(k, Keyword)}
    assert keywords == {("TEST ARMY", True), ("INFANTRY", False), ("BATTLELINE", False)}


def test_fixture_cross_catalogue_unit_without_namespace(army: list[Record]) -> None:
    """A unit defined in a namespace-less library, its invuln in the game system's shared profiles."""
    walker = datasheet(army, "bsdata:Test Army.cat", "Library Walker")
    assert walker.datasheet_id == "bs:army-1:lib-walker"
    assert (walker.damaged_w, walker.role, walker.line) == ("1-4", "Vehicle", 31)
    profile = model(army, walker, "Library Walker")
    assert (profile.movement, profile.toughness, profile.save, profile.wounds, profile.oc) == (
        8,
        10,
        3,
        12,
        4,
    )
    assert (profile.invuln, profile.invuln_condition) == (4, None)
    cannon = weapon(army, walker, "Walker cannon")
    assert (cannon.attacks.text, cannon.skill, cannon.strength.text, cannon.abilities) == ("D6+1", 3, "9", ["blast"])
    assert weapon(army, walker, "Big fist").damage.text == "D6+1"
    assert points(army, walker) == [(1, 150)]
    assert not of_type(army, Datasheet, "bsdata:Test Library.cat")  # a library has no root entries


def test_fixture_rules_become_rule_blocks(army: list[Record]) -> None:
    blocks = {(b.source_id, b.title, b.body) for b in of_type(army, RuleBlock) if isinstance(b, RuleBlock)}
    assert (
        "bsdata:Test Army.cat",
        "Army Rule",
        "Units with this ability re-roll Battle-shock tests.",
    ) in blocks
    assert {title for _, title, _ in blocks} == {
        "Army Rule",
        "Walker Protocols",
        "Deep Strike",
        "Scouts",
        "Pistol",
    }


def test_malformed_catalogue_is_quarantined_not_fatal(broken: list[Record]) -> None:
    rows = of_type(broken, QuarantineRow, "bsdata:Broken.cat")
    assert len(rows) == 1 and isinstance(rows[0], QuarantineRow)
    assert rows[0].reason.startswith("malformed XML") and rows[0].line == 6
    linker = reasons(broken, "bsdata:Linker.cat")
    assert any(r.startswith("unresolved link: catalogueLink to 'Broken Library'") and "unreadable" in r for r in linker)
    assert any(r == "unresolved link: game system sys-absent not in folder" for r in linker)
    assert any("infoLink 'Half a rule'" in r for r in linker)
    lonely = datasheet(broken, "bsdata:Linker.cat", "Lonely Unit")
    assert lonely.faction == "Linker"  # no Faction category: the catalogue name without its alliance
    assert points(broken, lonely) == [(1, 35)]


def test_single_file_parse_finds_its_siblings() -> None:
    records = list(parse(ARMY / "Test Army.cat"))
    assert {r.source_id for r in records} == {"bsdata:Test Army.cat"}
    walker = datasheet(records, "bsdata:Test Army.cat", "Library Walker")
    assert model(records, walker, "Library Walker").invuln == 4  # from the .gst next to it


def test_same_input_same_ids(army: list[Record]) -> None:
    again = list(parse(ARMY))
    assert [r.model_dump() for r in again] == [r.model_dump() for r in army]


def test_non_catalogue_path_is_an_input_error(tmp_path: Path) -> None:
    stray = tmp_path / "notes.txt"
    stray.write_text("not a catalogue")
    with pytest.raises(InputFormatError):
        list(parse(stray))


# -- the real catalogues ------------------------------------------------------------------
WE = "bsdata:Chaos - World Eaters.cat"
AM = "bsdata:Imperium - Astra Militarum.cat"
ORKS = "bsdata:Orks.cat"
NECRONS = "bsdata:Necrons.cat"
TAU = "bsdata:T'au Empire.cat"
TYRANIDS = "bsdata:Tyranids.cat"


@pytest.fixture(scope="module")
def parser(bsdata_dir: Path) -> BsdataParser:
    return BsdataParser()


@pytest.fixture(scope="module")
def real(parser: BsdataParser, bsdata_dir: Path) -> list[Record]:
    return list(parser.parse(bsdata_dir))


@pytest.mark.slow
def test_real_accounting_holds_for_every_file(real: list[Record], bsdata_dir: Path) -> None:
    sources = of_type(real, Source)
    assert len(sources) == len(list(bsdata_dir.glob("*.cat"))) + len(list(bsdata_dir.glob("*.gst")))
    assert_accounting(real)


@pytest.mark.slow
def test_real_units_per_catalogue(real: list[Record]) -> None:
    """Datasheets per file, derived from the XML with lxml alone: the file's root `selectionEntry`s and
    root `entryLink`s (not to groups) whose target, looked up in the file, its game system and the
    catalogues it links (transitively), is a `unit`/`model` entry, not `hidden="true"`, counted once per
    target id. Then minus the two the parser quarantines on purpose (named below)."""
    counts = Counter(r.source_id for r in of_type(real, Datasheet))
    assert counts == {
        "bsdata:Chaos - Chaos Daemons Library.cat": 71,
        "bsdata:Chaos - Chaos Knights Library.cat": 20,
        "bsdata:Chaos - Chaos Knights.cat": 17,
        "bsdata:Chaos - Chaos Space Marines.cat": 114,
        "bsdata:Chaos - Titanicus Traitoris.cat": 4,
        WE: 64,
        "bsdata:Imperium - Adepta Sororitas.cat": 41,
        "bsdata:Imperium - Adeptus Mechanicus.cat": 41,
        "bsdata:Imperium - Agents of the Imperium.cat": 49,
        AM: 137,  # all into the Astra Militarum library
        "bsdata:Imperium - Space Marines.cat": 158,
        "bsdata:Imperium - Space Wolves.cat": 40,  # 41 - the Crusade variant of Wolf Guard Headtakers (force-only)
        "bsdata:Imperium - Ultramarines.cat": 12,  # 4 more root links are hidden
        "bsdata:Leagues of Votann.cat": 25,
        "bsdata:Library - Titans.cat": 4,  # 4 more root entries repeat the same ids
        NECRONS: 66,
        ORKS: 92,
        TAU: 66,
        TYRANIDS: 63,  # 19 of them from Library - Tyranids
        "bsdata:Unaligned Forces.cat": 22,  # 23 - Searchlight, quarantined: no Unit profile
        "bsdata:Warhammer 40,000.gst": 4,  # the Unbound Adversaries
    }


@pytest.mark.slow
def test_lord_invocatus(real: list[Record]) -> None:
    invocatus = datasheet(real, WE, "Lord Invocatus")  # Chaos - World Eaters.cat line 2628
    assert (invocatus.faction, invocatus.role) == ("World Eaters", "Epic Hero")
    profile = model(real, invocatus, "Lord Invocatus")
    assert (profile.movement, profile.toughness, profile.save, profile.wounds) == (10, 6, 3, 8)
    assert (profile.leadership, profile.oc, profile.invuln, profile.invuln_condition) == (6, 2, 4, None)
    pistol = weapon(real, invocatus, "Bolt pistol")
    assert (pistol.skill, pistol.range_inches, pistol.attacks.text, pistol.strength.text) == (2, 12, "1", "4")
    assert (pistol.ap, pistol.damage.text, pistol.abilities) == (0, "1", ["pistol"])
    bane = weapon(real, invocatus, "Coward's Bane")
    assert (bane.kind, bane.attacks.text, bane.skill, bane.ap, bane.abilities) == (
        "melee",
        "7",
        2,
        -2,
        ["devastating wounds"],
    )
    assert points(real, invocatus) == [(1, 110)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source_id", "unit", "model_name", "statline", "invuln"),
    [
        (ORKS, "Boyz", "Boy", (6, 5, 5, 1, 7, 2), None),  # Orks.cat 3020
        (ORKS, "Boyz", "Boss Nob", (6, 5, 5, 2, 7, 2), None),  # Orks.cat 3212
        (
            AM,
            "Leman Russ Battle Tank",
            "Leman Russ Battle Tank",
            (10, 11, 2, 13, 7, 3),
            None,
        ),  # AM Library 37447
        (AM, "Gorgon Heavy Transport [Legends]", "Gorgon Heavy Transport", None, (5, "ranged")),  # 23131
        (NECRONS, "Necron Warriors", "Necron Warriors", (5, 4, 4, 1, 7, 2), None),  # Necrons.cat 6299
        (TAU, "Broadside Battlesuits", "Broadside Shas’ui", (5, 6, 2, 8, 7, 2), None),  # T'au 6699
        (TYRANIDS, "Winged Hive Tyrant", "Winged Hive Tyrant", (12, 9, 2, 10, 7, 3), (4, None)),  # Library 12
        (TYRANIDS, "Termagants", "Termagants", (6, 3, 5, 1, 8, 2), None),  # Tyranids.cat 9303
    ],
)
def test_real_statlines(
    real: list[Record],
    source_id: str,
    unit: str,
    model_name: str,
    statline: tuple[int, ...] | None,
    invuln: tuple[int, str | None] | None,
) -> None:
    profile = model(real, datasheet(real, source_id, unit), model_name)
    values = (
        profile.movement,
        profile.toughness,
        profile.save,
        profile.wounds,
        profile.leadership,
        profile.oc,
    )
    if statline is not None:
        assert values == statline
    assert (profile.invuln, profile.invuln_condition) == (invuln or (None, None))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source_id", "unit", "name", "expected"),
    [
        (ORKS, "Boyz", "Shoota", ("ranged", 18, "2", 5, "4", 0, "1", ["rapid fire 1"])),  # Orks.cat 22123
        (ORKS, "Boyz", "Power klaw", ("melee", None, "3", 4, "9", -2, "2", [])),  # Orks.cat 3450
        (
            AM,
            "Leman Russ Battle Tank",
            "Leman Russ battle cannon",
            ("ranged", 48, "D6+3", 4, "10", -1, "3", ["blast"]),
        ),
        (
            AM,
            "Leman Russ Battle Tank",
            "Heavy flamer",
            ("ranged", 12, "D6", None, "5", -1, "1", ["ignores cover", "torrent"]),
        ),
        (
            NECRONS,
            "Necron Warriors",
            "Gauss flayer",
            ("ranged", 24, "1", 4, "4", 0, "1", ["lethal hits", "rapid fire 1"]),
        ),
        (
            TAU,
            "Broadside Battlesuits",
            "Heavy rail rifle",
            ("ranged", 60, "2", 4, "12", -4, "D6+1", ["heavy", "devastating wounds"]),
        ),
        (
            TYRANIDS,
            "Winged Hive Tyrant",
            "Heavy venom cannon",
            ("ranged", 36, "D3", 2, "9", -2, "3", ["blast"]),
        ),
        (TYRANIDS, "Termagants", "Fleshborer", ("ranged", 18, "1", 4, "5", 0, "1", ["assault"])),
    ],
)
def test_real_weapons(real: list[Record], source_id: str, unit: str, name: str, expected: tuple[object, ...]) -> None:
    found = weapon(real, datasheet(real, source_id, unit), name)
    values = (found.kind, found.range_inches, found.attacks.text, found.skill, found.strength.text, found.ap)
    assert (*values, found.damage.text, found.abilities) == expected


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source_id", "unit", "expected"),
    [
        (WE, "Khorne Berzerkers", [(10, 180), (20, 360)]),  # set 360 if models > 10; 1 + 9-19 models
        (ORKS, "Boyz", [(10, 80), (20, 170)]),  # set 170 if models > 10
        (NECRONS, "Necron Warriors", [(10, 90), (20, 200)]),  # set 200 if models >= 11
        (NECRONS, "Lokhust Destroyers", [(1, 40), (2, 60), (3, 90), (6, 180)]),  # >= 4 is the 6-model size
        (ORKS, "Gretchin", [(11, 40), (22, 80)]),  # composition options: 1+10 or 2+20 models
        (TYRANIDS, "Carnifexes", [(1, 90), (2, 180)]),  # 90 per Carnifex model, 1-2 models
    ],
)
def test_real_points(real: list[Record], source_id: str, unit: str, expected: list[tuple[int, int]]) -> None:
    assert points(real, datasheet(real, source_id, unit)) == expected


@pytest.mark.slow
def test_real_cross_catalogue_links_resolve(real: list[Record], bsdata_dir: Path) -> None:
    """Units listed by a faction catalogue but defined in a library catalogue it links."""
    library = (bsdata_dir / "Library - Tyranids.cat").read_text(encoding="utf-8")
    faction = (bsdata_dir / "Tyranids.cat").read_text(encoding="utf-8")
    assert 'id="fa68-fcb9-38c-cd0f"' in library and 'id="fa68-fcb9-38c-cd0f"' not in faction
    tyrant = datasheet(real, TYRANIDS, "Winged Hive Tyrant")
    assert tyrant.datasheet_id == "bs:b984-7317-81cc-20f:fa68-fcb9-38c-cd0f"
    # The Astra Militarum catalogue holds no profile at all: every statline comes from its library.
    assert "<profile " not in (bsdata_dir / "Imperium - Astra Militarum.cat").read_text(encoding="utf-8")
    assert len(of_type(real, ModelProfile, AM)) >= 137


@pytest.mark.slow
def test_real_unresolved_links_are_reported(real: list[Record], parser: BsdataParser) -> None:
    """The folder lacks one linked catalogue: `grep -o 'catalogueLink [^>]*'` gives 11 target ids, all but
    1b6d-dc06-5db9-c7d1 (Imperium - Imperial Knights - Library, linked by the 7 Imperium files) defined
    by a file here. One link inside a unit points into it: Adeptus Mechanicus' entryLink to
    c6b4-5090-67be-ea17 (`grep -l 'id="c6b4-5090-67be-ea17"'` finds no file)."""
    imperium = [
        "Adepta Sororitas",
        "Adeptus Mechanicus",
        "Agents of the Imperium",
        "Astra Militarum",
        "Space Marines",
        "Space Wolves",
        "Ultramarines",
    ]
    missing = {sid: stats.missing_catalogues for sid, stats in parser.stats.items() if stats.missing_catalogues}
    assert missing == {f"bsdata:Imperium - {name}.cat": ["Imperium - Imperial Knights - Library"] for name in imperium}
    link = (
        "unresolved link: catalogueLink to 'Imperium - Imperial Knights - Library' (1b6d-dc06-5db9-c7d1) not in folder"
    )
    for name in imperium:
        unresolved = [r for r in reasons(real, f"bsdata:Imperium - {name}.cat") if r.startswith("unresolved link")]
        extra = 1 if name == "Adeptus Mechanicus" else 0
        assert unresolved.count(link) == 1 and len(unresolved) == 1 + extra, name
    admech = reasons(real, "bsdata:Imperium - Adeptus Mechanicus.cat")
    assert any(r.startswith("unresolved link: entryLink 'Questor Forgepact Enhancements' -> c6b4") for r in admech)


@pytest.mark.slow
def test_real_keys_are_unique(real: list[Record]) -> None:
    seen: Counter[tuple[object, ...]] = Counter()
    for record in real:
        if record.KEY:
            seen[(record.TABLE, *(getattr(record, k) for k in record.KEY))] += 1
    assert [key for key, n in seen.items() if n > 1] == []
