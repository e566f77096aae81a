"""Stage: dedupe — rule blocks -> distinct rules + occurrences + variants, and the
merge of records whose ids repeat across input files (page-export stratagems).

`dedupe_dataset(dataset)` is the one call the run needs after parsing: it merges the
shared tables in place, adds `rules` and `rule_occurrences` from `rule_blocks` (which
stay in the dataset), and returns the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.dataset import Dataset
from pipeline.dedupe.rules import DedupeReport, DedupeResult, dedupe_rules, normalise, rule_hash
from pipeline.dedupe.shared import SHARED_TABLES, KeyConflict, MergeResult, merge_shared_records
from schemas.records import RuleBlock

__all__ = [
    "SHARED_TABLES",
    "DedupeReport",
    "DedupeResult",
    "DedupeRunReport",
    "KeyConflict",
    "MergeResult",
    "dedupe_dataset",
    "dedupe_rules",
    "merge_shared_records",
    "normalise",
    "rule_hash",
]


@dataclass(frozen=True)
class DedupeRunReport:
    rules: DedupeReport
    collapsed: dict[str, int]
    conflicts: list[KeyConflict]

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.rules.as_dict(),
            "collapsed": dict(self.collapsed),
            "conflicts": len(self.conflicts),
        }


def dedupe_dataset(dataset: Dataset) -> DedupeRunReport:
    """Merge shared-id tables in place; add `rules` and `rule_occurrences`."""
    collapsed: dict[str, int] = {}
    conflicts: list[KeyConflict] = []
    for table in SHARED_TABLES:
        merged = merge_shared_records(dataset.table(table), tables=[table])
        dataset.replace(table, merged.records)
        collapsed[table] = merged.collapsed
        conflicts += merged.conflicts
    blocks = [b for b in dataset.table(RuleBlock.TABLE) if isinstance(b, RuleBlock)]
    result = dedupe_rules(blocks)
    dataset.replace("rules", result.rules)
    dataset.replace("rule_occurrences", result.occurrences)
    return DedupeRunReport(result.report, collapsed, conflicts)
