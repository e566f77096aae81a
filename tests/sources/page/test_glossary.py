"""Page-export parser on the three real seeds: stratagems, detachment abilities, glossary
rule blocks, furniture, quarantine and the line accounting. Values read off the files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline.sources.page.patterns import CATEGORY_WORDS
from tests.conftest import AVENGER, INVOCATUS, WAZDAKKA
from tests.sources.page.test_parser import SEEDS, parsed, table

# Stratagem list entries per seed and per detachment (file lines 32-151 / 26-76 / 25-95).
STRATAGEM_LIST = {
    WAZDAKKA: {
        "Core": 8,
        "Kult of Speed": 6,
        "Speedwaaagh!": 6,
        "More Dakka!": 5,
        "Freebooter Krew": 4,
        "Taktikal Brigade": 4,
        "War Horde": 3,
        "Blitz Brigade": 1,
    },
    AVENGER: {"Core": 7, "Boarding Actions": 4, "Bridgehead Strike": 1, "Combined Regiment": 1},
    INVOCATUS: {"Core": 8, "Berzerker Warband": 6, "Boarding Actions": 5},
}
# Glossary blocks per kind.
BLOCK_KINDS = {
    WAZDAKKA: {
        "stratagem": 37,
        "rule": 21,
        "weapon_ability": 13,
        "core_ability": 5,
        "detachment_ability": 5,
        "faction_rule": 1,
    },
    AVENGER: {"rule": 18, "stratagem": 13, "weapon_ability": 5, "core_ability": 2},
    INVOCATUS: {
        "rule": 20,
        "stratagem": 19,
        "weapon_ability": 9,
        "core_ability": 4,
        "faction_rule": 1,
        "detachment_ability": 1,
    },
}
# Non-empty lines; lines per disposition (record / furniture / collapsed duplicate / quarantine).
LINES = {
    WAZDAKKA: (756, {"record": 628, "furniture": 41, "duplicate": 86, "quarantine": 1}),
    AVENGER: (360, {"record": 291, "furniture": 33, "duplicate": 35, "quarantine": 1}),
    INVOCATUS: (481, {"record": 405, "furniture": 27, "duplicate": 48, "quarantine": 1}),
}
# The one quarantined line of each seed: the weapon-profile tooltip sentence with no heading.
QUARANTINED_LINE = {WAZDAKKA: 179, AVENGER: 120, INVOCATUS: 167}
DETACHMENT_ABILITIES = {
    WAZDAKKA: [
        ("Get Stuck In", "War Horde"),
        ("Here Be Loot", "Freebooter Krew"),
        ("Turbo Boostas", "Speedwaaagh!"),
        ("Eager for the Fight", "Blitz Brigade"),
        ("Adrenaline Junkies", "Kult of Speed"),
    ],
    AVENGER: [],
    INVOCATUS: [("Relentless Rage", "Berzerker Warband")],
}


def by_id(path: Path, name: str, key: str) -> dict[str, Any]:
    return {getattr(r, key): r for r in table(path, name)}


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_stratagem_list_counts_and_links(path: Path) -> None:
    stratagems = table(path, "stratagems")
    assert dict(Counter(s.detachment for s in stratagems)) == STRATAGEM_LIST[path]
    links = table(path, "datasheet_stratagems")
    assert {link.stratagem_id for link in links} == {s.stratagem_id for s in stratagems}


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_every_listed_stratagem_got_its_glossary_text(path: Path) -> None:
    for stratagem in table(path, "stratagems"):
        texts = (stratagem.when, stratagem.target, stratagem.effect, stratagem.legend)
        assert None not in texts, stratagem.name


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_source_tags_mark_generic_stratagems(path: Path) -> None:
    faction = table(path, "datasheets")[0].faction
    for stratagem in table(path, "stratagems"):
        expected_tag = {"Core": "C", "Boarding Actions": "BA"}.get(stratagem.detachment)
        assert stratagem.source_tag == expected_tag
        assert stratagem.faction == (None if expected_tag else faction)


def test_merged_stratagem_when_target_effect_restrictions() -> None:
    strat = by_id(WAZDAKKA, "stratagems", "stratagem_id")["strat:core:insane-bravery"]
    assert (strat.name, strat.cp, strat.detachment, strat.type, strat.line) == (
        "INSANE BRAVERY",
        1,
        "Core",
        "Epic Deed",
        40,
    )
    assert strat.legend == (
        "Indifferent to their own survival, these warriors hold their ground against seemingly impossible odds."
    )
    assert strat.when == (
        "Battle-shock step of your Command phase, just before you take a Battle-shock test for a unit from your army."
    )
    assert strat.target == "That unit from your army."
    assert strat.effect == "Your unit automatically passes that Battle-shock test."
    assert strat.restrictions == "You cannot use this Stratagem more than once per battle."


def test_boarding_actions_variant_is_its_own_stratagem() -> None:
    strats = by_id(AVENGER, "stratagems", "stratagem_id")
    ba = strats["strat:boarding-actions:insane-bravery"]
    assert ba.when == (
        "Battle-shock step of your Command phase, just after you have failed a Battle-shock test taken for "
        "a unit from your army."
    )
    assert ba.effect == (
        "Your unit is treated as having passed that test instead, and is not Battle-shocked as a result."
    )
    core = strats["strat:core:insane-bravery"]
    assert core.effect == "Your unit automatically passes that Battle-shock test."


def test_designers_note_is_part_of_the_effect_once() -> None:
    strat = by_id(WAZDAKKA, "stratagems", "stratagem_id")["strat:more-dakka:get-stuck-in-ladz"]
    assert strat.cp == 2
    assert strat.effect.split("\n") == [
        "Until the start of your next Command phase, the Waaagh! is active for your unit, even if you have "
        "already called a Waaagh! this battle.",
        "Designer’s Note: This means that any abilities that are in effect while the Waaagh! is active for "
        "your army will be in effect for your unit.",
    ]


def test_khorne_cares_not_with_trailing_dots() -> None:
    strat = by_id(INVOCATUS, "stratagems", "stratagem_id")["strat:berzerker-warband:khorne-cares-not"]
    assert (strat.name, strat.cp, strat.type) == ("KHORNE CARES NOT...", 2, "Strategic Ploy")
    assert strat.when == "Fight phase, just after an enemy unit has selected its targets."


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_detachment_abilities(path: Path) -> None:
    got = [(d.name, d.detachment) for d in table(path, "detachment_abilities")]
    assert got == DETACHMENT_ABILITIES[path]
    assert len(table(path, "datasheet_detachment_abilities")) == len(got)


def test_detachment_ability_texts() -> None:
    loot = by_id(WAZDAKKA, "detachment_abilities", "name")["Here Be Loot"]
    assert loot.legend.startswith("Grabbing loot is a Freebooter’s favourite pastime")
    assert loot.text.split("\n")[1:] == [
        "- That model’s unit is within range of your loot objective.",
        "- That attack targets a unit within range of your loot objective.",
    ]
    rage = by_id(INVOCATUS, "detachment_abilities", "name")["Relentless Rage"]
    assert rage.text == (
        "Each time a unit from your army is selected to fight, if that unit made a Charge move this turn, "
        "until the end of the phase, add 1 to the Strength and Attacks characteristics of melee weapons "
        "equipped by models in that unit."
    )


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_glossary_block_kinds(path: Path) -> None:
    assert dict(Counter(b.kind for b in table(path, "rule_blocks"))) == BLOCK_KINDS[path]


def test_block_with_summary_and_example() -> None:
    hazardous = next(b for b in table(WAZDAKKA, "rule_blocks") if b.title == "Hazardous")
    assert (hazardous.line, hazardous.kind) == (184, "weapon_ability")
    assert hazardous.examples == [
        "A unit of five models make five attacks with ranged weapons with the [HAZARDOUS] ability. After the "
        "unit has finished shooting, its controlling player rolls five D6. One of the results is a 1, and so "
        "one of those models suffers 3 mortal wounds."
    ]
    assert len(hazardous.summary) == 1 and hazardous.summary[0].startswith("After a unit shoots or fights")
    # the glued `...one at a time):- If possible` list stays in the body, before the last paragraph
    body = hazardous.body.split("\n")
    assert body[1].endswith("(resolve each failed test one at a time):")
    assert body[2].startswith("- If possible, select one model")
    assert body[-1].startswith("If a unit from a player’s army is selected as the target")


def test_glued_titles_are_split_off() -> None:
    blocks = {(b.title, b.line) for b in table(WAZDAKKA, "rule_blocks")}
    for glued in [
        ("Torrent", 182),
        ("Hazardous", 184),
        ("FIGHT PROPPA", 499),
        ("Eager for the Fight", 531),
        ("STEALTH", 705),
    ]:
        assert glued in blocks
    ignores = next(b for b in table(WAZDAKKA, "rule_blocks") if b.title == "Ignores Cover")
    assert ignores.body.endswith("the target cannot have the Benefit of Cover against that attack.")
    assert ("HEROIC INTERVENTION", 337) in {(b.title, b.line) for b in table(AVENGER, "rule_blocks")}
    assert ("Advance Moves", 134) in {(b.title, b.line) for b in table(INVOCATUS, "rule_blocks")}


def test_repeated_heading_is_one_block() -> None:
    fnp = [b for b in table(INVOCATUS, "rule_blocks") if b.title.casefold() == "feel no pain"]
    assert [(b.title, b.line, b.kind) for b in fnp] == [("Feel No Pain", 124, "core_ability")]
    assert fnp[0].summary == [
        "Feel No Pain x+: Each time this model would lose a wound, roll one D6: if the result equals or "
        "exceeds ‘x’, that wound is not lost."
    ]


def test_stratagem_block_collapses_doubled_lines() -> None:
    block = next(b for b in table(WAZDAKKA, "rule_blocks") if b.title == "INSANE BRAVERY")
    lines = block.body.split("\n")
    assert [line.split(":")[0] for line in lines[3:]] == ["WHEN", "TARGET", "EFFECT", "RESTRICTIONS"]
    assert lines[:2] == ["1CP", "Core – Epic Deed Stratagem"]


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_furniture_is_not_a_rule(path: Path) -> None:
    blocks = table(path, "rule_blocks")
    category_titles = [(b.title, b.line) for b in blocks if b.title in CATEGORY_WORDS]
    assert category_titles == ([("Characters", 171)] if path == INVOCATUS else [])
    for block in blocks:
        text = "\n".join([block.body, *block.summary, *block.examples])
        assert "used in the following" not in text and "Army List" not in text
        assert "and others..." not in text and "| |||" not in text


def test_category_word_followed_by_text_is_a_rule_title() -> None:
    characters = next(b for b in table(INVOCATUS, "rule_blocks") if b.title == "Characters")
    assert characters.body.startswith("Some models have the CHARACTER keyword.")


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_accounting_every_line(path: Path) -> None:
    result = parsed(path)
    nonempty = sum(1 for line in path.read_text(encoding="utf-8").split("\n") if line.strip())
    rows_in, kinds = LINES[path]
    assert nonempty == rows_in == result.source.rows_in
    assert result.source.rows_curated + result.source.rows_quarantined == rows_in
    assert result.report.counts == {**{f"{kind} lines": n for kind, n in kinds.items()}, "profiles_without_statline": 1}
    assert result.fragments.unplaced() == [] and result.fragments.joins_back()


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_quarantine_is_the_headless_tooltip_sentence(path: Path) -> None:
    (row,) = table(path, "quarantine")
    assert (row.line, row.stage, row.table) == (QUARANTINED_LINE[path], "parse", "glossary")
    assert row.raw == ("Before selecting targets for this weapon, select one of its profiles to make attacks with.")
    assert row.reason == "sentence after a rule's summary, without a heading"


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_primary_keys_unique_within_a_page(path: Path) -> None:
    seen: Counter[tuple[Any, ...]] = Counter()
    for record in parsed(path).records:
        if record.KEY:
            seen[(record.TABLE, *(getattr(record, k) for k in record.KEY))] += 1
    assert [key for key, n in seen.items() if n > 1] == []
