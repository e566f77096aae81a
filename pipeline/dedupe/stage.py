"""The dedupe stage as `pipeline/run.py` calls it: a dataset in, a new dataset and its report out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.dataset import Dataset, Staged
from pipeline.dedupe.rules import DedupeReport, dedupe_rules
from pipeline.dedupe.shared import SHARED_MODELS, KeyConflict, merge_shared_records
from schemas.records import Record, Rule, RuleBlock, RuleOccurrence


@dataclass(frozen=True)
class DedupeRunReport:
    """Rule dedupe figures, records collapsed per shared table, and the conflicts met while merging."""

    rules: DedupeReport
    collapsed: dict[str, int]
    conflicts: tuple[KeyConflict, ...]

    def as_dict(self) -> dict[str, Any]:
        details = [
            {
                "table": c.table,
                "key": list(c.key),
                "field": c.field,
                "kept": c.kept,
                "dropped": c.dropped,
                "dropped_source": c.dropped_source,
            }
            for c in self.conflicts
        ]
        return {
            **self.rules.as_dict(),
            "collapsed": dict(self.collapsed),
            "conflicts": len(self.conflicts),
            "conflict_details": details,
        }


def dedupe_stage(dataset: Dataset) -> Staged[DedupeRunReport]:
    """Merge page-independent ids (stratagems, detachment abilities), then rule blocks ->
    `rules` + `rule_occurrences` (`rule_blocks` stay)."""
    tables: dict[type[Record], list[Record]] = {}
    collapsed: dict[str, int] = {}
    conflicts: list[KeyConflict] = []
    for model in SHARED_MODELS:
        merged = merge_shared_records(dataset.records(model), tables=[model.TABLE])
        tables[model] = merged.records
        collapsed[model.TABLE] = merged.collapsed
        conflicts += merged.conflicts
    result = dedupe_rules(dataset.records(RuleBlock))
    tables[Rule] = list(result.rules)
    tables[RuleOccurrence] = list(result.occurrences)
    report = DedupeRunReport(result.report, collapsed, tuple(conflicts))
    return Staged(dataset.replacing(tables), report)
