"""How `dataslate matchup` prints a result: a small bar chart of P(k models slain) and the summary numbers
(every name escaped: unit names are data, never markup)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pipeline.matchups.lookup import MatchupResult

BAR_WIDTH = 40


def _bar(probability: float, largest: float) -> str:
    cells = round(BAR_WIDTH * probability / largest) if largest > 0 else 0
    return "█" * cells if cells else ("▏" if probability > 0 else "")


def render(result: MatchupResult, console: Console) -> None:
    title = Text(f"{result.attacker.name} ({result.attacker.models}) → {result.target.name} ({result.target.models})")
    title.append(f"  {result.phase}, {result.scenario}", style="dim")
    console.print(title)
    largest = max(result.distribution, default=0.0)
    chart = Table(show_header=True, box=None, pad_edge=False)
    chart.add_column("slain", justify="right")
    chart.add_column("P", justify="right")
    chart.add_column("")
    for k, p in enumerate(result.distribution):
        chart.add_row(str(k), f"{100 * p:5.1f} %", Text(_bar(p, largest), style="cyan"))
    console.print(chart)
    s = result.summary
    lines = [
        f"expected slain {s['models_slain']:.2f} of {result.target.models}  (10/50/90 %: "
        f"{s['slain_p10']} / {s['slain_p50']} / {s['slain_p90']})",
        f"P(any) {100 * float(s['p_any'] or 0):.1f} %   P(wipe) {100 * float(s['p_wipe'] or 0):.1f} %",
        f"wounds lost {s['wounds_lost']:.2f} of {s['target_wounds']}",
        f"points destroyed {s['points_destroyed']:.1f}"
        + (
            f" ({s['points_destroyed_per_100']:.1f} per 100 points)"
            if s["points_destroyed_per_100"] is not None
            else ""
        ),
    ]
    for line in lines:
        console.print(Text(line))
