"""Stage package: quality (Great Expectations suites from `expectations/`, severities, report).

GX itself is imported lazily, inside the stage run: importing this package is cheap.
"""

from pipeline.quality.report import ExpectationOutcome, QualityReport, TableReport
from pipeline.quality.stage import quality_gate, run_quality
from pipeline.quality.suites import list_expectations

__all__ = [
    "ExpectationOutcome",
    "QualityReport",
    "TableReport",
    "list_expectations",
    "quality_gate",
    "run_quality",
]
