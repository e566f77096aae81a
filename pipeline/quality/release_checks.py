"""Critical checks on a release as a whole, beside the table suites: no two outputs written to one file
name, and against the previous release in the same output folder no table or input file emptied and
no table losing more than a share of its rows (docs/quality.md#release-checks).

They report as the table `release` of the quality report, so they gate, print and land in
`summary.json`, the page and the manifest like any expectation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from pipeline.publish.formats import planned_outputs
from pipeline.publish.outdir import ReleaseInfo
from pipeline.quality.report import ExpectationOutcome, TableReport

#: The quality report's name for these checks.
TABLE = "release"
#: Offenders listed per failed check.
SHOWN = 10


def _outcome(label: str, checked: int, offenders: Sequence[dict[str, Any]], notes: str) -> ExpectationOutcome:
    return ExpectationOutcome(
        expectation=label,
        severity="critical",
        success=not offenders,
        element_count=checked,
        unexpected_count=len(offenders),
        unexpected_rows=list(offenders[:SHOWN]),
        notes=notes,
    )


def output_names_unique(outputs: Mapping[str, Sequence[str]]) -> ExpectationOutcome:
    """`outputs`: for each published file (relative path), what would be written there; two things
    for one name (compared case-folded: a release may be copied to a case-insensitive disk) collide."""
    by_name: dict[str, list[str]] = {}
    for path, what in outputs.items():
        by_name.setdefault(path.casefold(), []).extend(what)
    collisions = [{"file": name, "outputs": sorted(what)} for name, what in sorted(by_name.items()) if len(what) > 1]
    return _outcome("output_names_unique", len(by_name), collisions, "two outputs written to one file lose one")


def _emptied(now: Mapping[str, int], before: Mapping[str, int], key: str) -> list[dict[str, Any]]:
    return [
        {key: name, "previous": before[name], "now": now[name]}
        for name in sorted(now.keys() & before.keys())
        if before[name] > 0 and now[name] == 0
    ]


def _dropped(now: Mapping[str, int], before: Mapping[str, int], max_drop: float) -> list[dict[str, Any]]:
    return [
        {"table": name, "previous": before[name], "now": now[name], "drop": round(1 - now[name] / before[name], 4)}
        for name in sorted(now.keys() & before.keys())
        if before[name] > 0 and 1 - now[name] / before[name] > max_drop
    ]


def against_previous(
    row_counts: Mapping[str, int], curated: Mapping[str, int], previous: ReleaseInfo | None, max_drop: float
) -> list[ExpectationOutcome]:
    """Emptied tables and input files, row-count drops; a note alone for the first release. A drop to
    zero is a drop of 1: with `max_drop` >= 1 none of these checks can fail."""
    if previous is None:
        note = "first release in this output folder: no previous release, so no emptied-table or row-drop check"
        return [ExpectationOutcome("compared_with_previous_release", "critical", True, notes=note)]
    where = f"against {previous.name}"
    if max_drop >= 1:
        return [
            ExpectationOutcome(
                "compared_with_previous_release", "critical", True, notes=f"{where}: off (max row drop {max_drop})"
            )
        ]
    return [
        _outcome("tables_not_emptied", len(row_counts), _emptied(row_counts, previous.row_counts, "table"), where),
        _outcome(
            "input_files_not_emptied",
            len(curated),
            _emptied(curated, previous.curated, "source_id"),
            f"{where}: curated rows per input file (header-only, empty, a column missing, all quarantined)",
        ),
        _outcome(
            f"row_count_drop_at_most({max_drop:.0%})",
            len(row_counts),
            _dropped(row_counts, previous.row_counts, max_drop),
            where,
        ),
    ]


def release_checks(
    outputs: Mapping[str, Sequence[str]],
    row_counts: Mapping[str, int],
    curated: Mapping[str, int],
    previous: ReleaseInfo | None,
    max_drop: float,
) -> TableReport:
    """Every release-level check, as the quality report's table `release`."""
    outcomes = (output_names_unique(outputs), *against_previous(row_counts, curated, previous, max_drop))
    return TableReport(TABLE, "ok", len(outputs), outcomes)


def check_release(
    frames: Mapping[str, pl.DataFrame], damage_cells: int, previous: ReleaseInfo | None, max_drop: float
) -> TableReport:
    """The release checks of a run's frames (rows per table, curated rows per input file, planned files)."""
    counts = {name: frame.height for name, frame in frames.items()} | {"damage_matrix": damage_cells}
    sources = frames["sources"]
    curated = dict(zip(sources["source_id"].to_list(), sources["rows_curated"].to_list(), strict=True))
    return release_checks(planned_outputs(frames), counts, curated, previous, max_drop)
