"""The dedupe stage as `pipeline/run.py` calls it: dataset in, JSON-ready report out."""

from __future__ import annotations

from typing import Any

from pipeline.dataset import Dataset
from pipeline.dedupe import dedupe_dataset


def dedupe_stage(dataset: Dataset) -> dict[str, Any]:
    """Merge page-independent ids (stratagems, detachment abilities), then rule blocks ->
    `rules` + `rule_occurrences`. Report: blocks_seen, distinct_rules, variants,
    titles_with_variants, collapsed (per table), conflicts (count) and their details."""
    report = dedupe_dataset(dataset)
    details = [
        {
            "table": c.table,
            "key": list(c.key),
            "field": c.field,
            "kept": c.kept,
            "dropped": c.dropped,
            "dropped_source": c.dropped_source,
        }
        for c in report.conflicts
    ]
    return {**report.as_dict(), "conflict_details": details}
