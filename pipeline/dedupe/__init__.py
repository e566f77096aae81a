"""Stage: dedupe — rule blocks -> distinct rules + occurrences + variants, and the
merge of records whose ids repeat across input files (page-export stratagems).

`dedupe_stage(dataset)` (stage.py) is the one call the run needs after parsing: it
returns a new dataset with the shared tables merged and `rules` and
`rule_occurrences` added from `rule_blocks` (which stay), and its report.
"""

from __future__ import annotations

from pipeline.dedupe.rules import DedupeReport, DedupeResult, dedupe_rules, normalise, rule_hash
from pipeline.dedupe.shared import SHARED_TABLES, KeyConflict, MergeResult, merge_shared_records
from pipeline.dedupe.stage import DedupeRunReport, dedupe_stage

__all__ = [
    "SHARED_TABLES",
    "DedupeReport",
    "DedupeResult",
    "DedupeRunReport",
    "KeyConflict",
    "MergeResult",
    "dedupe_rules",
    "dedupe_stage",
    "merge_shared_records",
    "normalise",
    "rule_hash",
]
