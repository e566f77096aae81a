"""Rule dedupe: real figures across the three seeds, and small constructed cases."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from pipeline.dedupe import dedupe_rules, rule_hash
from pipeline.dedupe.rules import DedupeResult
from pipeline.sources.page.parser import parse_page
from schemas.records import Rule, RuleBlock
from tests.conftest import AVENGER, INVOCATUS, WAZDAKKA


@cache
def seed_blocks() -> tuple[RuleBlock, ...]:
    return tuple(
        r for path in (WAZDAKKA, AVENGER, INVOCATUS) for r in parse_page(path).records if isinstance(r, RuleBlock)
    )


@cache
def seed_result() -> DedupeResult:
    return dedupe_rules(seed_blocks())


def rules_titled(title: str) -> list[Rule]:
    return [r for r in seed_result().rules if r.title == title]


def test_report_figures_across_the_three_seeds() -> None:
    report = seed_result().report
    assert report.as_dict() == {"blocks_seen": 174, "distinct_rules": 108, "variants": 5, "titles_with_variants": 5}
    assert len(seed_result().occurrences) == 174
    assert Counter(r.occurrences for r in seed_result().rules) == {1: 66, 2: 18, 3: 24}


def test_rule_seen_on_every_page_is_one_rule_with_three_occurrences() -> None:
    (hazardous,) = rules_titled("Hazardous")
    assert (hazardous.occurrences, hazardous.kind, hazardous.variant_of) == (3, "weapon_ability", None)
    where = [(o.source_id, o.line) for o in seed_result().occurrences if o.rule_id == hazardous.rule_id]
    assert where == [
        ("page_export:000_2e2c183ddf21453e.txt", 184),
        ("page_export:002_6cc6c763f2509c79.txt", 89),
        ("page_export:003_39e7b05ac4966267.txt", 100),
    ]
    assert hazardous.rule_id == f"rule:{hazardous.content_hash}"
    assert len(hazardous.summary) == 1 and len(hazardous.examples) == 1


def test_one_sentence_more_is_a_variant_of_the_commoner_text() -> None:
    canonical, variant = rules_titled("Normal Moves")
    assert (canonical.occurrences, canonical.variant_of) == (2, None)
    assert (variant.occurrences, variant.variant_of) == (1, canonical.rule_id)
    assert variant.body.endswith("A unit cannot make more than one Normal move per phase.")
    assert "more than one Normal move" not in canonical.body


def test_same_rule_twice_on_one_page_with_more_text_is_a_variant() -> None:
    rules = rules_titled("Desperate Escape Tests")
    assert [r.occurrences for r in rules] == [3, 3]
    canonical = next(r for r in rules if r.variant_of is None)
    other = next(r for r in rules if r.variant_of is not None)
    assert other.variant_of == canonical.rule_id
    assert len(canonical.body) > len(other.body)  # tie on occurrences -> the longer body


def test_stratagem_of_another_detachment_is_a_variant() -> None:
    canonical, variant = rules_titled("COMMAND RE-ROLL")
    assert "Core – Battle Tactic Stratagem" in canonical.body and canonical.occurrences == 3
    assert "Boarding Actions – Epic Deed Stratagem" in variant.body and variant.occurrences == 2
    assert variant.variant_of == canonical.rule_id


def test_input_order_does_not_change_the_output() -> None:
    backwards = dedupe_rules(reversed(seed_blocks()))
    assert backwards.rules == seed_result().rules
    assert backwards.occurrences == seed_result().occurrences


def block(title: str, body: str, source: str = "page_export:a.txt", line: int = 1, **extra: list[str]) -> RuleBlock:
    return RuleBlock(title=title, body=body, source_id=source, line=line, **extra)


def test_quotes_whitespace_and_title_case_do_not_split_a_rule() -> None:
    a = block("Deep Strike", "Some ‘x’ rule.\nSecond   line.", line=1)
    b = block("DEEP STRIKE", "Some 'x' rule. Second line.", line=9)
    assert rule_hash(a) == rule_hash(b)
    result = dedupe_rules([a, b])
    (rule,) = result.rules
    assert (rule.title, rule.body, rule.occurrences) == ("Deep Strike", a.body, 2)
    assert [o.line for o in result.occurrences] == [1, 9]


def test_summary_and_examples_are_part_of_the_identity() -> None:
    a = block("Blast", "Body.", summary=["one"])
    b = block("Blast", "Body.", line=2, summary=["two"])
    c = block("Blast", "Body.", line=3, summary=["one"], examples=["An example."])
    assert len({rule_hash(a), rule_hash(b), rule_hash(c)}) == 3
    assert dedupe_rules([a, b, c]).report.variants == 2


def test_canonical_by_occurrences_then_length_then_hash() -> None:
    short = [block("Rule", "Short.", line=n) for n in (1, 2)]
    long = block("Rule", "A much longer body text.", line=3)
    result = dedupe_rules([*short, long])
    canonical = next(r for r in result.rules if r.variant_of is None)
    assert canonical.body == "Short."  # two occurrences beat the longer body
    tie = dedupe_rules([block("Rule", "Short.", line=1), long])
    assert next(r for r in tie.rules if r.variant_of is None).body == "A much longer body text."
    same_length = dedupe_rules([block("Rule", "Text A."), block("Rule", "Text B.", line=2)])
    canonical = next(r for r in same_length.rules if r.variant_of is None)
    assert canonical.content_hash == min(r.content_hash for r in same_length.rules)


def test_the_same_block_passed_twice_counts_once() -> None:
    a = block("Rule", "Body.")
    result = dedupe_rules([a, a])
    assert (result.report.blocks_seen, result.rules[0].occurrences, len(result.occurrences)) == (2, 1, 1)


@pytest.mark.parametrize("blocks", [[], [block("Only", "")]])
def test_edge_inputs(blocks: list[RuleBlock]) -> None:
    result = dedupe_rules(blocks)
    assert result.report.distinct_rules == len(blocks) and result.report.variants == 0
