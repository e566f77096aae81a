"""Rule blocks -> distinct rules, their occurrences and variants (docs/dedupe.md#rule-blocks)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.ids import content_hash
from pipeline.normalise.text import collapse_ws, fold_quotes
from schemas.records import Rule, RuleBlock, RuleOccurrence


@dataclass(frozen=True)
class DedupeReport:
    blocks_seen: int
    distinct_rules: int
    variants: int
    titles_with_variants: int

    def as_dict(self) -> dict[str, int]:
        return {
            "blocks_seen": self.blocks_seen,
            "distinct_rules": self.distinct_rules,
            "variants": self.variants,
            "titles_with_variants": self.titles_with_variants,
        }


@dataclass(frozen=True)
class DedupeResult:
    rules: list[Rule]
    occurrences: list[RuleOccurrence]
    report: DedupeReport


def normalise(text: str) -> str:
    """The comparison form of a rule text: quotes folded, whitespace collapsed."""
    return collapse_ws(fold_quotes(text))


def title_key(title: str) -> str:
    return normalise(title).casefold()


def rule_hash(block: RuleBlock) -> str:
    """Content hash of a block's normalised text (title case-folded)."""
    content = [
        title_key(block.title),
        normalise(block.body),
        [normalise(s) for s in block.summary],
        [normalise(e) for e in block.examples],
    ]
    return content_hash(json.dumps(content, ensure_ascii=False))


def _provenance(block: RuleBlock) -> tuple[str, int]:
    return (block.source_id or "", block.line or 0)


def _canonical(rules: list[Rule]) -> Rule:
    """Most occurrences, then longest (normalised) body, then smallest hash."""
    return min(rules, key=lambda r: (-r.occurrences, -len(normalise(r.body)), r.content_hash))


def _rule(digest: str, blocks: list[RuleBlock]) -> Rule:
    first = min(blocks, key=_provenance)
    return Rule(
        rule_id=f"rule:{digest}",
        title=first.title,
        body=first.body,
        content_hash=digest,
        kind=first.kind,
        occurrences=len({_provenance(b) for b in blocks}),
        summary=list(first.summary),
        examples=list(first.examples),
    )


def _with_variants(rules: list[Rule]) -> list[Rule]:
    by_title: dict[str, list[Rule]] = defaultdict(list)
    for rule in rules:
        by_title[title_key(rule.title)].append(rule)
    result: list[Rule] = []
    for key in sorted(by_title):
        group = by_title[key]
        canonical = _canonical(group)
        for rule in sorted(group, key=lambda r: (r is not canonical, r.rule_id)):
            variant_of = None if rule is canonical else canonical.rule_id
            result.append(rule.model_copy(update={"variant_of": variant_of}))
    return result


def dedupe_rules(blocks: Iterable[RuleBlock]) -> DedupeResult:
    """Distinct rules (with variants marked) and one occurrence per (rule, source, line)."""
    by_hash: dict[str, list[RuleBlock]] = defaultdict(list)
    seen = 0
    for block in blocks:
        seen += 1
        by_hash[rule_hash(block)].append(block)
    rules = _with_variants([_rule(digest, group) for digest, group in by_hash.items()])
    variants = [r for r in rules if r.variant_of is not None]
    report = DedupeReport(
        blocks_seen=seen,
        distinct_rules=len(rules),
        variants=len(variants),
        titles_with_variants=len({title_key(r.title) for r in variants}),
    )
    return DedupeResult(rules=rules, occurrences=_occurrences(by_hash), report=report)


def _occurrences(by_hash: dict[str, list[RuleBlock]]) -> list[RuleOccurrence]:
    """One per (rule, source, line), sorted."""
    found = {(f"rule:{digest}", *_provenance(block)) for digest, group in by_hash.items() for block in group}
    return [RuleOccurrence(rule_id=r, source_id=s, line=n) for r, s, n in sorted(found)]
