"""Page-export parser on broken input: hand-made fixtures (tests/fixtures/pages/) and
generated garbage. Nothing crashes, nothing is lost, every bad fragment is quarantined
with a reason."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.sources.page.parser import INVALID_UTF8, PageParse, parse_page, parse_page_text
from pipeline.sources.page.sections import MALFORMED_POINTS
from pipeline.sources.page.weapons import ability_vocabulary, split_weapon_name
from schemas.records import QuarantineRow
from tests.conftest import WAZDAKKA

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "pages"


def quarantine(result: PageParse) -> dict[int | None, str]:
    return {r.line: r.reason for r in result.records if isinstance(r, QuarantineRow)}


def table(result: PageParse, name: str) -> list:  # type: ignore[type-arg]
    return [r for r in result.records if name == r.TABLE]


def assert_accounted(result: PageParse) -> None:
    source = result.source
    assert source.rows_in == source.rows_curated + source.rows_quarantined
    assert result.fragments.unplaced() == [] and result.fragments.joins_back()
    assert not any("internal" in r.reason for r in table(result, "quarantine"))


def test_no_header_quarantines_datasheet_sections_but_reads_the_rest() -> None:
    result = parse_page(FIXTURES / "no_header.txt")
    assert_accounted(result)
    assert table(result, "datasheets") == [] and table(result, "weapons") == []
    assert quarantine(result) == {n: "no datasheet header: section has no datasheet" for n in (1, 2, 3)}
    (strat,) = table(result, "stratagems")
    assert (strat.stratagem_id, strat.source_tag) == ("strat:core:command-re-roll", "C")
    assert table(result, "datasheet_stratagems") == []
    assert [b.title for b in table(result, "rule_blocks")] == ["Destroyed"]


def test_broken_weapon_rows_are_quarantined_with_reasons() -> None:
    result = parse_page(FIXTURES / "broken_weapons.txt")
    assert_accounted(result)
    assert quarantine(result) == {
        7: "weapons: ap: Input should be less than or equal to 0",
        8: "expected 6 values (range, A, skill, S, AP, D), found 3",
        9: "weapon name row without a profile row",
        14: "not a weapon table row",
        18: "weapons: skill: Input should be less than or equal to 6",
    }
    assert (result.source.rows_in, result.source.rows_quarantined) == (24, 5)


def test_weapon_edge_cases_that_do_parse() -> None:
    result = parse_page(FIXTURES / "broken_weapons.txt")
    weapons = {w.weapon_id.split(":")[-1]: w for w in table(result, "weapons")}
    assert sorted(weapons) == [
        "flamer",
        "plasma-pistol-standard",
        "plasma-pistol-supercharge",
        "power-fist",
        "storm-bolter",
        "storm-bolter-e464c2",
    ]
    # a multi-profile heading row (`| Plasma pistol | ||||`) is consumed by its `➤` profiles
    assert weapons["plasma-pistol-supercharge"].abilities == ["hazardous", "pistol"]
    # an identical repeated row collapses; a different profile under the same name gets its own id
    assert (weapons["storm-bolter"].attacks.text, weapons["storm-bolter-e464c2"].attacks.text) == ("2", "4")
    assert weapons["storm-bolter"].abilities == ["rapid fire 2"]
    # torrent: skill N/A -> NULL; dice attacks kept as dice
    assert (weapons["flamer"].skill, weapons["flamer"].attacks.text) == (None, "D6")
    kinds = Counter(f.disposition for f in result.fragments.fragments())
    assert kinds["duplicate"] == 3  # Power fist empty row, Storm bolter repeat, INFANTRY repeat
    assert [k.keyword for k in table(result, "keywords")] == ["INFANTRY", "CHARACTER", "ADEPTUS ASTARTES"]


def test_broken_stratagems_and_glossary() -> None:
    result = parse_page(FIXTURES / "broken_glossary.txt")
    assert_accounted(result)
    assert quarantine(result) == {
        4: "ability text without an ability name",
        6: "stratagems: cp: Input should be less than or equal to 5",
        7: "stratagems: cp: Input should be less than or equal to 5",
        8: "stratagems: cp: Input should be less than or equal to 5",
        9: "stratagems: cp: Input should be less than or equal to 5",
        13: "glossary text before any heading",
        14: "heading without text",
        23: "second EFFECT line with a different text",
    }
    (strat,) = table(result, "stratagems")
    assert (strat.name, strat.effect, strat.faction) == ("TEST PLOY", "Something happens.", "Orks")
    (feel_no_pain,) = table(result, "abilities")
    assert (feel_no_pain.name, feel_no_pain.parameter) == ("Feel No Pain", "5+")
    assert [(b.title, b.line) for b in table(result, "rule_blocks")] == [
        ("TEST PLOY", 15),
        ("Torrent", 24),
        ("Lance", 25),
    ]
    assert "UNIT COMPOSITION names no model: no model profile" in result.report.notes


def test_malformed_points_rows_are_quarantined_not_read_as_composition() -> None:
    result = parse_page(FIXTURES / "broken_points.txt")
    assert_accounted(result)
    assert quarantine(result) == {7: MALFORMED_POINTS, 9: MALFORMED_POINTS}  # `| 5 models | 9x0 |`, `| 1 model |`
    assert [(p.models, p.cost, p.line) for p in table(result, "points")] == [(10, 180, 8)]
    assert [c.text for c in table(result, "unit_composition")] == ["1 Test Sergeant", "4-9 Test Marines"]
    assert {p.unit_size for p in table(result, "model_profiles")} == {10}


def test_lines_that_are_not_utf8_are_quarantined_with_their_bytes_shown() -> None:
    result = parse_page(FIXTURES / "not_utf8.txt")  # starts with a BOM; line 4 ends in CRLF
    assert_accounted(result)
    rows = {r.line: r for r in table(result, "quarantine")}
    assert {line: r.reason for line, r in rows.items()} == {4: INVALID_UTF8, 9: INVALID_UTF8}
    assert rows[4].raw == '| Bolt r\\xff\\xfeifle | 24" | 2 | 3+ | 4 | -1 | 1 | |'
    assert rows[9].raw == "| 1 model | 8\\xc30 |"
    assert [w.name for w in table(result, "weapons")] == ["Boltgun", "Power sword"]
    assert table(result, "points") == []
    assert (result.source.rows_in, result.source.rows_quarantined) == (12, 2)
    assert [r for r in result.records if "\ufffd" in r.model_dump_json()] == []
    (datasheet,) = table(result, "datasheets")
    assert (datasheet.faction, datasheet.name) == ("Space Marines", "Test Captain")  # no BOM in the faction


def test_garbage_bytes_never_crash() -> None:
    data = bytes(range(256)) * 3 + b"\n\xff\xfe| | |\n\x00\x00\nORKS\n1CP\n"
    result = parse_page_text(data.decode("utf-8", errors="replace"), source_id="page_export:garbage.txt")
    assert_accounted(result)
    assert set(quarantine(result).values()) == {"text before any datasheet section"}
    assert result.source.rows_quarantined == result.source.rows_in - 2
    # `ORKS` then `1CP` does read as a stratagem list entry (name + CP, no detachment)
    assert [s.stratagem_id for s in table(result, "stratagems")] == ["strat:unknown:orks"]


def test_undecodable_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Orks – Wazdakka Gutsmek\nKEYWORDS: MOUNTED\n".encode("utf-16"))
    result = parse_page(path)
    assert_accounted(result)
    assert quarantine(result)[1] == INVALID_UTF8  # UTF-16's byte-order mark is not UTF-8


@pytest.mark.parametrize("text", ["", "\n\n  \n", "Orks – Nobody"])
def test_empty_or_header_only(text: str) -> None:
    result = parse_page_text(text, source_id="page_export:empty.txt")
    assert_accounted(result)
    assert result.source.rows_in == len([line for line in text.split("\n") if line.strip()])


def test_crlf_line_endings_give_the_same_records() -> None:
    text = WAZDAKKA.read_text(encoding="utf-8")
    unix = parse_page_text(text, source_id="page_export:x.txt", sha256="0" * 64)
    dos = parse_page_text(text.replace("\n", "\r\n"), source_id="page_export:x.txt", sha256="0" * 64)
    assert [r.model_dump() for r in dos.records] == [r.model_dump() for r in unix.records]


def test_glossary_titles_feed_the_glued_ability_vocabulary() -> None:
    plain = ability_vocabulary([])
    assert split_weapon_name("Grot blasta snagged", plain)[0] == "Grot blasta snagged"
    name, abilities = split_weapon_name("Grot blasta snagged", ability_vocabulary(["Snagged", "Anti"]))
    assert (name, [a.normalised for a in abilities]) == ("Grot blasta", ["snagged"])


@pytest.mark.parametrize(
    ("cell", "name", "abilities"),
    [
        ("Psyko-gatler assault sustained hits 1", "Psyko-gatler", ["assault", "sustained hits 1"]),
        ("Grabba dragga lance", "Grabba dragga", ["lance"]),
        ("Fixit’s wrench extra attacks", "Fixit’s wrench", ["extra attacks"]),
        ("Bladed horn [extra attacks, lance]", "Bladed horn", ["extra attacks", "lance"]),
        ("Hunting lance lance", "Hunting lance", ["lance"]),
        ("Missile launcher anti-fly 2+ blast", "Missile launcher", ["anti-fly 2+", "blast"]),
        ("Lance", "Lance", []),
        ("Lascannon", "Lascannon", []),
    ],
)
def test_split_weapon_name(cell: str, name: str, abilities: list[str]) -> None:
    got_name, got = split_weapon_name(cell, ability_vocabulary([]))
    assert (got_name, [a.normalised for a in got]) == (name, abilities)
