"""`quality/index.html`: the quality report as one static page, every value escaped, nothing loaded.

Replaces GX Data Docs, which render data values unescaped and load scripts from CDNs
(docs/quality.md#report). The page is built from `QualityReport.to_dict()` only: no script, no
link, no image, a Content-Security-Policy that forbids loading anything, and the same bytes for
the same report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
from typing import Any

#: Nothing may load or run, even if a value slipped through unescaped: no scripts, no remote
#: resources, no forms; the inline style sheet below is the page's only resource.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
pre{margin:0;white-space:pre-wrap;word-break:break-all;max-width:60em}
.fail-critical{background:#fdd}.fail-warning{background:#ffd}
"""


def _text(value: Any) -> str:
    """Any value as escaped text: strings as they are, other values as compact JSON."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return escape(text, quote=True)


def _row(cells: Iterable[Any], css: str = "", tag: str = "td") -> str:
    attribute = f' class="{css}"' if css else ""
    return f"<tr{attribute}>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in cells) + "</tr>"


def _values(outcome: dict[str, Any]) -> str:
    """The offending rows (with their keys) and values of an outcome, else what was observed."""
    shown = [outcome.get("unexpected_rows"), outcome.get("unexpected_sample")]
    if not any(shown) and outcome.get("observed_value") is not None:
        shown = [outcome["observed_value"]]
    return "".join(f"<pre>{_text(value)}</pre>" for value in shown if value not in (None, [], {}))


def _outcome_row(table: str, outcome: dict[str, Any]) -> str:
    css = "" if outcome["success"] else f"fail-{outcome['severity']}"
    counts = ""
    if outcome.get("unexpected_count") is not None:
        counts = f"{_text(outcome['unexpected_count'])} of {_text(outcome.get('element_count'))}"
    cells = [
        _text(table),
        _text(outcome["expectation"]),
        _text(outcome["severity"]),
        "passed" if outcome["success"] else "failed",
        counts,
        _values(outcome),
        _text(outcome.get("error") or outcome.get("notes")),
    ]
    return _row(cells, css)


_HEADINGS = ("table", "expectation", "severity", "result", "rows failed", "values", "error / notes")


def _outcome_table(rows: list[str]) -> str:
    if not rows:
        return "<p>None.</p>"
    return "<table>" + _row(_HEADINGS, tag="th") + "".join(rows) + "</table>"


def _failures(summary: dict[str, Any]) -> str:
    failed = [
        (0 if e["severity"] == "critical" else 1, table, e)
        for table, t in summary["tables"].items()
        for e in t["expectations"]
        if not e["success"]
    ]
    rows = [_outcome_row(table, e) for _, table, e in sorted(failed, key=lambda item: (item[0], item[1]))]
    return "<h2>Failed expectations</h2>" + _outcome_table(rows)


def _tables(summary: dict[str, Any]) -> str:
    parts = ["<h2>Every table</h2>"]
    for table, report in sorted(summary["tables"].items()):
        status = f"{_text(report['status'])}, {_text(report['rows'])} rows"
        parts.append(f'<h3 id="t-{_text(table)}">{_text(table)} <small>({status})</small></h3>')
        parts.append(_outcome_table([_outcome_row(table, e) for e in report["expectations"]]))
    return "".join(parts)


def render_page(summary: dict[str, Any]) -> str:
    """The page for one `QualityReport.to_dict()`."""
    verdict = "passed" if summary["passed"] else "FAILED: not publishable"
    head = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>dataslate quality report</title><style>{_STYLE}</style></head><body>"
    )
    counts = (
        f"<h1>Quality report: {verdict}</h1><p>{_text(summary['expectations'])} expectations, "
        f"{_text(summary['critical_failures'])} critical failures, {_text(summary['warnings'])} warnings.</p>"
    )
    return head + counts + _failures(summary) + _tables(summary) + "</body></html>\n"
