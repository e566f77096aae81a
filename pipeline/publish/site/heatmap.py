"""Heatmaps as inline SVG: rows (weapons, reference units) against columns (reference profiles per
scenario), one colour class per band of a fixed log scale so that pages compare with each other.

Only numbers and names escaped by `markupsafe.escape` go into the markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

#: Upper bounds of the colour bands (class h0 .. h8); h0 is exactly zero.
BANDS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
CELL_W, CELL_H, LABEL_W, HEAD_H, GAP = 40, 18, 220, 84, 70


def band(value: float | None) -> str:
    if value is None:
        return "hn"
    for index, bound in enumerate(BANDS):
        if value <= bound:
            return f"h{index}"
    return f"h{len(BANDS)}"


def number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if value >= 99.5 else f"{value:.1f}" if value >= 9.95 else f"{value:.2f}"


@dataclass(frozen=True)
class Grid:
    """A titled heatmap: row labels, column labels, values[row][column] (None: no value)."""

    title: str
    rows: Sequence[str]
    columns: Sequence[str]
    values: Sequence[Sequence[float | None]]


def _header(grid: Grid) -> str:
    parts = [f'<text class="g" x="{LABEL_W}" y="12">{escape(grid.title)}</text>']
    for index, column in enumerate(grid.columns):
        cx = LABEL_W + index * CELL_W + CELL_W // 2
        parts.append(f'<text class="c" x="{cx}" y="{HEAD_H - 4}" transform="rotate(-40 {cx} {HEAD_H - 4})">'
                     f"{escape(column)}</text>")  # fmt: skip
    return "".join(parts)


def _row(label: str, values: Sequence[float | None], y: int) -> str:
    cells = [f'<g transform="translate(0,{y})"><text class="r" x="{LABEL_W - 6}">{escape(label)}</text>']
    for position, value in enumerate(values):
        x = LABEL_W + position * CELL_W
        cells.append(f'<rect x="{x}" class="{band(value)}"/><text x="{x + CELL_W // 2}">{number(value)}</text>')
    cells.append("</g>")
    return "".join(cells)


def heatmap_svg(grid: Grid) -> Markup:
    """The whole SVG (role img, labelled by its title); empty markup when there is nothing to draw."""
    if not grid.rows or not grid.columns:
        return Markup("")
    width = LABEL_W + len(grid.columns) * CELL_W + GAP
    height = HEAD_H + len(grid.rows) * (CELL_H + 2)
    rows = "".join(_row(label, grid.values[i], HEAD_H + 13 + i * (CELL_H + 2)) for i, label in enumerate(grid.rows))
    return Markup(
        f'<svg class="heat" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(grid.title)}">{_header(grid)}{rows}</svg>'
    )


def legend_svg() -> Markup:
    """The colour bands with their bounds."""
    parts = []
    for index in range(len(BANDS) + 1):
        low = "0" if index == 0 else f">{BANDS[index - 1]:g}"
        parts.append(f'<rect x="{index * 48}" class="h{index}"/><text x="{index * 48 + 20}">{low}</text>')
    width = (len(BANDS) + 1) * 48
    return Markup(f'<svg class="heat legend" xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" '
                  f'viewBox="0 0 {width} 20"><g transform="translate(0,14)">{"".join(parts)}</g></svg>')  # fmt: skip


def distribution_svg(probabilities: Sequence[float], label: str) -> Markup:
    """P(k models slain) as bars, k = 0, 1, ...; the axis labels every fifth k."""
    if not probabilities:
        return Markup("")
    bar, height = 14, 80
    top = max(probabilities) or 1.0
    parts = []
    for k, p in enumerate(probabilities):
        h = round(p / top * height, 1)
        parts.append(f'<rect class="bar" x="{k * bar}" y="{height - h}" width="{bar - 2}" height="{h}"/>')
        if k % 5 == 0:
            parts.append(f'<text x="{k * bar + bar // 2}" y="{height + 12}">{k}</text>')
    width = len(probabilities) * bar
    size = f'width="{width}" height="{height + 16}" viewBox="0 0 {width} {height + 16}"'
    return Markup(
        f'<svg class="dist" xmlns="http://www.w3.org/2000/svg" {size} role="img" aria-label="{escape(label)}">'
        f"{''.join(parts)}</svg>"
    )
