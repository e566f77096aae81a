"""The quality suites: one GX 1.x ExpectationSuite JSON per table in `expectations/`, with our severities and
derived columns (docs/quality.md#suites). Loading them needs no GX import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from pipeline import config
from pipeline.errors import PipelineError

Severity = Literal["critical", "warning"]
SEVERITIES: tuple[Severity, ...] = ("critical", "warning")

#: Expectation kwargs whose meaning we know: anything else makes the whole table fetched (`read_columns`).
_KNOWN_KWARGS = frozenset(
    {"column", "column_A", "column_B", "column_list", "column_set", "exact_match", "row_condition"}
    | {"min_value", "max_value", "strict_min", "strict_max", "value_set", "regex", "mostly"}
)


class SuiteFormatError(PipelineError):
    """A suite file that is not a valid suite: a programming error, reported with its file."""


@dataclass(frozen=True)
class ExpectationSpec:
    """One expectation of a suite, with its severity and a label unique in the suite."""

    type: str
    kwargs: dict[str, Any]
    severity: Severity
    notes: str

    @property
    def label(self) -> str:
        """Readable, stable name: `expect_column_values_to_be_null(range_inches where kind == melee)`."""
        target = self.kwargs.get("column") or ", ".join(self.kwargs.get("column_list", []))
        if "column_set" in self.kwargs:
            target = "contract columns"
        if "min_value" in self.kwargs or "max_value" in self.kwargs:
            target = f"{target} {describe_bounds(self.kwargs)}".strip()
        condition = self.kwargs.get("row_condition")
        if condition:
            target = f"{target} where {describe_condition(condition)}"
        return f"{self.type}({target})"

    def read_columns(self) -> set[str] | None:
        """Columns whose values GX reads for this expectation; None when a kwarg is not known to us."""
        condition = self.kwargs.get("row_condition") or {}
        if not set(self.kwargs) <= _KNOWN_KWARGS or not isinstance(condition, dict):
            return None
        columns = {self.kwargs[k] for k in ("column", "column_A", "column_B") if k in self.kwargs}
        columns |= set(self.kwargs.get("column_list", []))
        return columns | condition_columns(condition)

    def gx_dict(self) -> dict[str, Any]:
        """The expectation as GX reads it; the label travels in `meta` to map results back."""
        meta = {"severity": self.severity, "notes": self.notes, "label": self.label}
        return {"type": self.type, "kwargs": self.kwargs, "meta": meta}


@dataclass(frozen=True)
class FileSummarySpec:
    """How a summary query's rows add up over the files of `relation` (docs/quality.md#summaries-by-file): the
    key's first column is the hive folder of each file; every other column but the key is a count, summed over
    files, except each of `null_shares`, the share of its denominator column's cells that are NULL
    (`1 - count(x) / count(*)`)."""

    relation: str
    null_shares: dict[str, str]


@dataclass(frozen=True)
class SuiteSpec:
    """The expectations of one table and the derived columns they read.

    A suite with `summary_sql` is checked on that query's result (DuckDB aggregates a
    table too large to load, one row per `summary_key`), not on the table's rows.
    """

    table: str
    description: str
    derived_columns: dict[str, str]
    expectations: tuple[ExpectationSpec, ...]
    summary_sql: str | None = None
    summary_key: tuple[str, ...] = ()
    summary_by_file: FileSummarySpec | None = None

    def read_columns(self) -> set[str] | None:
        """Columns whose values some expectation reads (a column set only checks names); None: unknown."""
        read: set[str] = set()
        for expectation in self.expectations:
            columns = expectation.read_columns()
            if columns is None:
                return None
            read |= columns
        return read

    def gx_dict(self) -> dict[str, Any]:
        """Keyword arguments of a GX `ExpectationSuite`."""
        return {
            "name": self.table,
            "expectations": [e.gx_dict() for e in self.expectations],
            "meta": {"table": self.table, "description": self.description},
        }


def condition_columns(condition: dict[str, Any]) -> set[str]:
    """Columns a GX row condition (JSON form) reads."""
    names = {str(condition["column"]["name"])} if isinstance(condition.get("column"), dict) else set()
    for inner in condition.get("conditions", []):
        names |= condition_columns(inner)
    return names


def describe_bounds(kwargs: dict[str, Any]) -> str:
    """`{"min_value": 0, "strict_min": true}` -> `> 0`; `{-6, 0}` -> `in [-6, 0]`."""
    low, high = kwargs.get("min_value"), kwargs.get("max_value")
    if low is not None and high is not None:
        return f"in [{low}, {high}]"
    if low is not None:
        return f"{'>' if kwargs.get('strict_min') else '>='} {low}"
    return f"{'<' if kwargs.get('strict_max') else '<='} {high}"


def describe_condition(condition: dict[str, Any]) -> str:
    """`{"type": "comparison", "column": {"name": "kind"}, ...}` -> `kind == melee`."""
    kind = condition.get("type")
    if kind in ("and", "or"):
        return f" {kind} ".join(describe_condition(c) for c in condition.get("conditions", []))
    column = condition.get("column", {}).get("name", "?")
    if kind == "nullity":
        return f"{column} is {'null' if condition.get('is_null') else 'not null'}"
    parameter = condition.get("parameter")
    if isinstance(parameter, list):
        parameter = "(" + ", ".join(str(p) for p in parameter) + ")"
    return f"{column} {condition.get('operator', '?')} {parameter}"


def _expectation(raw: dict[str, Any], path: Path) -> ExpectationSpec:
    meta = raw.get("meta") or {}
    kind = raw.get("type", "")
    if not isinstance(kind, str) or not kind.startswith("expect_"):
        raise SuiteFormatError(f"expectation without a valid type: {raw!r}", path=path)
    if meta.get("severity") not in SEVERITIES:
        raise SuiteFormatError(f"{kind}: meta.severity must be one of {SEVERITIES}", path=path)
    return ExpectationSpec(
        type=kind,
        kwargs=dict(raw.get("kwargs") or {}),
        severity=cast(Severity, meta["severity"]),
        notes=str(meta.get("notes", "")),
    )


def load_suite(path: Path) -> SuiteSpec:
    """Read and check one suite file (the file is named after its table)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SuiteFormatError(f"cannot read suite: {exc}", path=path) from exc
    meta = raw.get("meta") or {}
    if raw.get("name") != path.stem or meta.get("table") != path.stem:
        raise SuiteFormatError("suite name and meta.table must equal the file name", path=path)
    expectations = tuple(_expectation(e, path) for e in raw.get("expectations", []))
    labels = [e.label for e in expectations]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise SuiteFormatError(f"expectations with the same label: {duplicates}", path=path)
    summary_sql, summary_key = _summary(meta.get("summary"), path)
    by_file = _by_file((meta.get("summary") or {}).get("by_file"), summary_key, path)
    return SuiteSpec(
        table=path.stem,
        description=str(meta.get("description", "")),
        derived_columns={str(k): str(v) for k, v in (meta.get("derived_columns") or {}).items()},
        expectations=expectations,
        summary_sql=summary_sql,
        summary_key=summary_key,
        summary_by_file=by_file,
    )


def _summary(raw: Any, path: Path) -> tuple[str | None, tuple[str, ...]]:
    """`meta.summary` = {"sql": "<file beside the suite>", "key": [columns]} -> (query text, key)."""
    if raw is None:
        return None, ()
    if not isinstance(raw, dict) or not isinstance(raw.get("sql"), str) or not isinstance(raw.get("key"), list):
        raise SuiteFormatError('meta.summary must be {"sql": "<file>.sql", "key": [columns]}', path=path)
    try:
        sql = (path.parent / raw["sql"]).read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteFormatError(f"cannot read summary query: {exc}", path=path) from exc
    return sql, tuple(str(c) for c in raw["key"])


def _by_file(raw: Any, key: tuple[str, ...], path: Path) -> FileSummarySpec | None:
    """`meta.summary.by_file` = {"relation": "<folder relation>", "null_shares": {column: denominator}}."""
    if raw is None:
        return None
    shares = raw.get("null_shares", {}) if isinstance(raw, dict) else None
    if not isinstance(raw.get("relation") if isinstance(raw, dict) else None, str) or not isinstance(shares, dict):
        raise SuiteFormatError('meta.summary.by_file must be {"relation": "<name>", "null_shares": {}}', path=path)
    if not key:
        raise SuiteFormatError(
            "a summary added up by file needs a key (its first column: the files' folder)", path=path
        )
    return FileSummarySpec(str(raw["relation"]), {str(k): str(v) for k, v in shares.items()})


def load_suites(directory: Path = config.EXPECTATIONS_DIR) -> list[SuiteSpec]:
    """Every suite in the folder, in file-name order (so reports are ordered the same)."""
    return [load_suite(path) for path in sorted(directory.glob("*.json"))]


def list_expectations(directory: Path = config.EXPECTATIONS_DIR) -> list[tuple[str, str, Severity]]:
    """(table, expectation label, severity) for every expectation: the closing note's list."""
    return [(s.table, e.label, e.severity) for s in load_suites(directory) for e in s.expectations]
