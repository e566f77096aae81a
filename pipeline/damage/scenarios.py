"""The situations a damage cell is computed under (the `scenario` column).

A scenario is a set of battlefield facts that switch weapon abilities on or off:
half range (Rapid Fire, Melta), a Charge move (Lance), Remained Stationary
(Heavy), the target in cover, and whether the target is visible (Indirect Fire).
The five published scenarios keep the target visible; `indirect` (target not
visible) is implemented for callers who ask for it but is not published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class Scenario:
    """One situation; every flag False is the `default` scenario."""

    name: str
    half_range: bool = False
    charged: bool = False
    stationary: bool = False
    cover: bool = False
    target_visible: bool = True


#: Every scenario the engine knows, by name.
SCENARIO_DEFINITIONS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("default"),
        Scenario("half_range", half_range=True),
        Scenario("charged", charged=True),
        Scenario("stationary", stationary=True),
        Scenario("cover", cover=True),
        Scenario("indirect", target_visible=False),
    )
}

#: The published scenarios, in publication order.
SCENARIOS: tuple[str, ...] = ("default", "half_range", "charged", "stationary", "cover")


def resolve_scenarios(scenarios: Sequence[str | Scenario]) -> list[Scenario]:
    """Names or Scenario objects -> Scenario objects; unknown names are an error, not a skip."""
    resolved: list[Scenario] = []
    for item in scenarios:
        if isinstance(item, Scenario):
            resolved.append(item)
        elif item in SCENARIO_DEFINITIONS:
            resolved.append(SCENARIO_DEFINITIONS[item])
        else:
            raise ValueError(f"unknown scenario {item!r}; known: {sorted(SCENARIO_DEFINITIONS)}")
    names = [s.name for s in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate scenario names in {names}")
    return resolved


def scenarios_frame(scenarios: Sequence[Scenario]) -> pl.DataFrame:
    """One row per scenario with its flags, plus `scenario_idx` (position in the request)."""
    import polars as pl  # here, not at import: the unit engine uses this module without Polars

    rows = [asdict(s) for s in scenarios]
    frame = pl.DataFrame(
        rows,
        schema={
            "name": pl.String,
            "half_range": pl.Boolean,
            "charged": pl.Boolean,
            "stationary": pl.Boolean,
            "cover": pl.Boolean,
            "target_visible": pl.Boolean,
        },
    )
    return frame.rename({"name": "scenario"}).with_row_index("scenario_idx")
