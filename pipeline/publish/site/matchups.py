"""Unit-level results when a release has them (`unit_vs_reference`, `unit_matchups`): the unit's
models slain against reference units as heatmaps, and a page per attacking unit with the slain
distribution against each target. A release without these tables says so on every unit page.

Columns are read by the names of the dataset contract (docs/explorer.md#unit-results).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup

from pipeline.damage.scenarios import SCENARIOS
from pipeline.publish.site.heatmap import Grid, distribution_svg, heatmap_svg, number

Row = dict[str, Any]
#: The most target rows an attacker's matchup page lists (largest expected slain first).
MAX_MATCHUP_ROWS = 60


def _first(columns: Sequence[str], *names: str) -> str | None:
    return next((n for n in names if n in columns), None)


class VsReference:
    """`unit_vs_reference` grouped by attacking unit: the default scenario's rows and the columns the maps
    draw only (the whole table as dicts took ~10 s on the three corpora)."""

    def __init__(self, frame: pl.DataFrame) -> None:
        columns = frame.columns
        self.unit = _first(columns, "unit_id", "attacker_unit_id") or "unit_id"
        self.models = _first(columns, "models", "attacker_models")
        self.target = _first(columns, "profile_id", "reference_id", "target_profile_id", "target_unit_id", "target")
        self.target_models = _first(columns, "target_models")
        self.phase = _first(columns, "phase")
        self.units = set(frame[self.unit].unique().to_list()) if self.unit in columns else set()
        if "scenario" in columns:
            frame = frame.filter(pl.col("scenario") == SCENARIOS[0])
        drawn = [self.unit, self.models, self.target, self.target_models, self.phase, "scenario", "models_slain"]
        frame = frame.select(list(dict.fromkeys(c for c in drawn if c is not None and c in columns)))
        self.rows: dict[str, list[Row]] = defaultdict(list)
        for row in frame.to_dicts():
            self.rows[row[self.unit]].append(row)

    def __contains__(self, unit_id: object) -> bool:
        return unit_id in self.units


def _row_label(row: Row, table: VsReference) -> str:
    label = f"{row[table.models]} models" if table.models else "unit"
    return f"{label}, {row[table.phase]}" if table.phase else label


def _column_label(row: Row, table: VsReference, labels: Mapping[str, str]) -> str:
    target = str(row[table.target]) if table.target else "target"
    name = labels.get(target, target)
    return f"{name} x{row[table.target_models]}" if table.target_models else name


def vs_reference_maps(table: VsReference | None, unit_id: str, labels: Mapping[str, str]) -> list[Markup] | None:
    """None: no such table in the release; else the heatmap of the default scenario (the other scenarios
    are in the table and the feed: one map per scenario made the site outgrow its 60 MB)."""
    if table is None:
        return None
    scenario = SCENARIOS[0]
    chosen = [r for r in table.rows.get(unit_id, []) if r.get("scenario", scenario) == scenario]
    if not chosen:
        return []
    cells = [(_row_label(r, table), _column_label(r, table, labels), r.get("models_slain")) for r in chosen]
    row_labels = sorted({row for row, _, _ in cells}, key=lambda t: (len(t), t))
    columns = sorted({column for _, column, _ in cells})
    row_at = {label: i for i, label in enumerate(row_labels)}
    column_at = {label: i for i, label in enumerate(columns)}
    values: list[list[float | None]] = [[None] * len(columns) for _ in row_labels]
    for row, column, slain in cells:  # labels computed once, positions by dict (list.index was O(n) per cell)
        values[row_at[row]][column_at[column]] = slain
    drawn = heatmap_svg(Grid(f"models slain, {scenario}", row_labels, columns, values))
    return [drawn] if drawn else []


def matchup_rows(frame: pl.DataFrame, unit_id: str, names: Mapping[str, Row]) -> list[Row]:
    """The attacker's rows in the default scenario, most models slain first, with their distribution."""
    rows = frame.filter((pl.col("attacker_unit_id") == unit_id) & (pl.col("scenario") == SCENARIOS[0]))
    rows = rows.sort("models_slain", descending=True).head(MAX_MATCHUP_ROWS)
    shown = []
    for row in rows.to_dicts():
        target = names.get(row["target_unit_id"], {})
        dist = [float(p) for p in row.get("slain_dist") or []]
        shown.append({
            **row, "target_name": target.get("name", row["target_unit_id"]), "target_url": target.get("url", ""),
            "slain": number(row.get("models_slain")), "p_any": number(row.get("p_any")),
            "p_wipe": number(row.get("p_wipe")), "svg": distribution_svg(dist, "P(k models slain)"),
        })  # fmt: skip
    return shown


def matchup_attackers(frame: pl.DataFrame | None) -> set[str] | None:
    """Units with matchup rows as attacker; None when the release has no unit_matchups."""
    if frame is None:
        return None
    return set(frame["attacker_unit_id"].unique().to_list())
