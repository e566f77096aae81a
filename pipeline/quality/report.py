"""The quality report: what was checked, what failed, how badly, and on which values.

`summary.json` is part of a release, whose files are hashed in the manifest, so it
is deterministic: no clock, no paths, stable ordering, samples in key order.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pipeline.quality.page import render_page
from pipeline.quality.suites import Severity

#: Where a release keeps its quality output.
QUALITY_DIRNAME = "quality"
SUMMARY_FILENAME = "summary.json"
PAGE_FILENAME = "index.html"

#: How many distinct offending values a result keeps.
SAMPLE_SIZE = 10


@dataclass(frozen=True)
class ExpectationOutcome:
    """The result of one expectation on one table."""

    expectation: str
    severity: Severity
    success: bool
    element_count: int | None = None
    unexpected_count: int | None = None
    unexpected_sample: list[Any] = field(default_factory=list)
    #: Key columns (and the checked column) of the first offending rows.
    unexpected_rows: list[dict[str, Any]] = field(default_factory=list)
    observed_value: Any = None
    error: str | None = None
    notes: str = ""

    def describe(self, table: str) -> str:
        """One line for a person: `weapons: expect_...(ap) failed on 3 rows, e.g. [1, 2]`."""
        if self.error:
            return f"{table}: {self.expectation} could not run: {self.error}"
        if self.unexpected_count is not None:
            return (
                f"{table}: {self.expectation} failed on {self.unexpected_count} of "
                f"{self.element_count} rows, e.g. {self.unexpected_rows[:3] or self.unexpected_sample}"
            )
        return f"{table}: {self.expectation} failed (observed {self.observed_value!r})"


@dataclass(frozen=True)
class TableReport:
    """Every outcome of one table's suite; `status` says whether the table had rows."""

    table: str
    status: str
    rows: int
    outcomes: tuple[ExpectationOutcome, ...]


@dataclass(frozen=True)
class FailedExpectation:
    """One failed expectation, as the manifest lists it."""

    table: str
    expectation: str
    severity: Severity
    unexpected_count: int | None


@dataclass(frozen=True)
class QualitySummary:
    """The quality stage's report for `manifest.json`: counts and the failed expectations."""

    passed: bool
    expectations: int
    critical_failures: int
    warnings: int
    failed: tuple[FailedExpectation, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "expectations": self.expectations,
            "critical_failures": self.critical_failures,
            "warnings": self.warnings,
            "failed": [asdict(f) for f in self.failed],
        }


@dataclass
class QualityReport:
    """All tables' outcomes; `passed` is False when any critical expectation failed."""

    tables: list[TableReport]

    @property
    def outcomes(self) -> list[tuple[str, ExpectationOutcome]]:
        return [(t.table, o) for t in self.tables for o in t.outcomes]

    def failures(self, severity: Severity) -> list[tuple[str, ExpectationOutcome]]:
        return [(t, o) for t, o in self.outcomes if not o.success and o.severity == severity]

    @property
    def passed(self) -> bool:
        return not self.failures("critical")

    def message(self) -> str:
        """The one clear message when critical gates fail (first few, then a count)."""
        failed = self.failures("critical")
        lines = [o.describe(t) for t, o in failed[:5]]
        more = f"; and {len(failed) - 5} more" if len(failed) > 5 else ""
        return f"{len(failed)} critical quality gate(s) failed: " + "; ".join(lines) + more

    def to_dict(self) -> dict[str, Any]:
        """The full summary (what `summary.json` holds)."""
        return {
            "passed": self.passed,
            "expectations": len(self.outcomes),
            "critical_failures": len(self.failures("critical")),
            "warnings": len(self.failures("warning")),
            "tables": {t.table: _table_dict(t) for t in self.tables},
        }

    def manifest_summary(self) -> QualitySummary:
        """The compact form for `manifest.json`: counts and the failed expectations."""
        failed = [(t, o) for t, o in self.outcomes if not o.success]
        return QualitySummary(
            passed=self.passed,
            expectations=len(self.outcomes),
            critical_failures=len(self.failures("critical")),
            warnings=len(self.failures("warning")),
            failed=tuple(FailedExpectation(t, o.expectation, o.severity, o.unexpected_count) for t, o in failed),
        )

    def write(self, out_dir: Path) -> Path:
        """Write `quality/summary.json` and `quality/index.html` (the page: `page.py`) under out_dir."""
        quality_dir = out_dir / QUALITY_DIRNAME
        quality_dir.mkdir(parents=True, exist_ok=True)
        summary = self.to_dict()
        text = json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        (quality_dir / SUMMARY_FILENAME).write_text(text + "\n", encoding="utf-8")
        (quality_dir / PAGE_FILENAME).write_text(render_page(json.loads(text)), encoding="utf-8")
        return quality_dir


def _table_dict(table: TableReport) -> dict[str, Any]:
    return {
        "status": table.status,
        "rows": table.rows,
        "expectations": [asdict(o) for o in table.outcomes],
    }


def plain_value(value: Any) -> Any:
    """A JSON-ready copy of a value GX returned (numpy scalars, NaN, NA, integral floats)."""
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, str):
        return plain_value(value.tolist())
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() else value
    return None if str(value) in {"<NA>", "NaT", "nan"} else str(value)


def distinct_sample(values: list[Any], size: int = SAMPLE_SIZE) -> list[Any]:
    """First `size` distinct values, in order (uniqueness failures list each duplicate twice)."""
    seen: set[str] = set()
    sample: list[Any] = []
    for value in values:
        key = json.dumps(value, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            sample.append(value)
        if len(sample) == size:
            break
    return sample
