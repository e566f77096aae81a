"""`dataslate matchup`: find two units of a published release by name or id and compute their matchup in any
scenario from the release's golden tables (a few rows read with pyarrow; no DuckDB, no Polars, and not
`pyarrow.dataset` or `pyarrow.compute`, whose imports cost more than the whole computation)."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pipeline.errors import PipelineError
from pipeline.matchups.sides import UnitOption, unit_options
from pipeline.matchups.tables import golden_tables
from pipeline.units import loops
from pipeline.units.engine import UnitEngine, compute_matchups
from pipeline.units.model import Phase

MAX_CANDIDATES = 8


class UnitNotFound(PipelineError):
    """A unit name that matches no unit, or several."""


def fold_name(text: str) -> str:
    """Case, accents, quotes and punctuation folded (`Boyz` = `boyz`, `T'au` = `Tau`)."""
    text = unicodedata.normalize("NFKD", text.replace("’", "'"))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold().replace("'", "")
    return " ".join("".join(c if c.isalnum() else " " for c in text).split())


@dataclass(frozen=True)
class Release:
    """A release folder's Parquet tables, read lazily and filtered."""

    folder: Path

    def read(self, table: str, columns: Sequence[str], ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        path = self.folder / f"{table}.parquet"
        if not path.is_file():
            return []
        parquet = pq.ParquetFile(path)
        names = parquet.schema_arrow.names
        wanted = [c for c in columns if c in names]
        key = "unit_id" if "unit_id" in names else "datasheet_id" if "datasheet_id" in names else None
        data = parquet.read(columns=wanted, use_threads=False)  # tiny tables: no thread pool to start
        if ids is None or key is None or key not in wanted:
            return list(data.to_pylist())
        keep = set(ids)
        rows: list[dict[str, Any]] = []
        for start, length in _runs(i for i, value in enumerate(data.column(key).to_pylist()) if value in keep):
            rows.extend(data.slice(start, length).to_pylist())
        return rows


def _runs(indices: Iterable[int]) -> Iterator[tuple[int, int]]:
    """(start, length) of each run of consecutive indices (a unit's rows lie together)."""
    start = end = -1
    for index in indices:
        if index != end:
            if end > start:
                yield start, end - start
            start = index
        end = index + 1
    if end > start:
        yield start, end - start


def _candidates(units: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    exact = [u for u in units if u["unit_id"] == query]
    if exact:
        return exact
    key = fold_name(query)
    named = [u for u in units if fold_name(str(u["name"])) == key]
    if named:
        return named
    return [u for u in units if key and key in fold_name(str(u["name"]))]


def _close(units: list[dict[str, Any]], query: str) -> str:
    """`; did you mean: ...` with the closest unit names, or nothing."""
    names = {fold_name(str(u["name"])): str(u["name"]) for u in units}
    close = difflib.get_close_matches(fold_name(query), list(names), n=MAX_CANDIDATES, cutoff=0.6)
    return f"; did you mean: {', '.join(names[c] for c in close)}" if close else ""


def find_unit(units: list[dict[str, Any]], query: str) -> str:
    """The unit id a name or id names; `Leader + Bodyguard` (names or ids) names an attached unit."""
    if "+" in query:
        leader, body = (part.strip() for part in query.split("+", 1))
        return f"{find_unit(units, leader)}+{find_unit(units, body)}"
    found = _candidates(units, query.strip())
    if len(found) == 1:
        return str(found[0]["unit_id"])
    if not found:
        raise UnitNotFound(f"no unit is named {query!r}{_close(units, query)}")
    listed = ", ".join(f"{u['unit_id']} ({u['name']})" for u in found[:MAX_CANDIDATES])
    more = f" and {len(found) - MAX_CANDIDATES} more" if len(found) > MAX_CANDIDATES else ""
    raise UnitNotFound(f"{query!r} names {len(found)} units: {listed}{more}; give the unit id")


def load_options(release: Release, unit_ids: Sequence[str]) -> list[UnitOption]:
    """The options of these units (and attached units), from only their rows."""
    units = release.read("units", ("unit_id", "name", "faction", "datasheet_ids"))
    parts = sorted({part for uid in unit_ids for part in uid.split("+")})
    known = {u["unit_id"] for u in units}
    missing = [p for p in parts if p not in known]
    if missing:
        raise UnitNotFound(f"no unit {missing[0]!r} in {release.folder}")
    chosen = [u for u in units if u["unit_id"] in parts]
    sheets = [str(d) for u in chosen for d in u["datasheet_ids"] or ()]

    def read(table: str, columns: Sequence[str]) -> list[dict[str, Any]]:
        if table == "units":
            return chosen
        if table in ("leaders",):
            return release.read(table, columns)
        if table in ("abilities", "keywords"):
            return release.read(table, columns, sheets)
        return release.read(table, columns, parts)

    options = unit_options(golden_tables(read), unit_ids)
    return [o for o in options if o.unit_id in unit_ids]


def pick_option(options: list[UnitOption], unit_id: str, models: int | None) -> UnitOption:
    mine = sorted((o for o in options if o.unit_id == unit_id), key=lambda o: o.models)
    if not mine:
        raise UnitNotFound(f"{unit_id} has no points option to compute (or is not a valid Leader pair)")
    if models is None:
        return mine[0]
    for option in mine:
        if option.models == models:
            return option
    raise UnitNotFound(
        f"{unit_id} has no option of {models} models (options: {', '.join(str(o.models) for o in mine)})"
    )


@dataclass(frozen=True)
class MatchupResult:
    attacker: UnitOption
    target: UnitOption
    scenario: str
    phase: str
    distribution: list[float]
    summary: dict[str, float | int | None]

    def as_dict(self) -> dict[str, Any]:
        return {
            "attacker_unit_id": self.attacker.unit_id,
            "attacker": self.attacker.name,
            "attacker_models": self.attacker.models,
            "target_unit_id": self.target.unit_id,
            "target": self.target.name,
            "target_models": self.target.models,
            "scenario": self.scenario,
            "phase": self.phase,
            **self.summary,
            "slain_dist": self.distribution,
        }


def matchup(attacker: UnitOption, target: UnitOption, scenario: str, phase: Phase) -> MatchupResult | None:
    """The exact distribution, or None when the attacker has no weapon of the phase."""
    if phase not in attacker.sides or target.target is None:
        return None
    with loops.numpy_only():
        result = compute_matchups([attacker.sides[phase]], [target.target], engine=UnitEngine(scenario))
    summary: dict[str, float | int | None] = {
        "models_slain": float(result.expected_slain[0]),
        "p_any": float(result.p_any[0]),
        "p_wipe": float(result.p_wipe[0]),
        "slain_p10": int(result.slain_p10[0]),
        "slain_p50": int(result.slain_p50[0]),
        "slain_p90": int(result.slain_p90[0]),
        "wounds_lost": float(result.wounds_lost[0]),
        "target_wounds": target.target.total_wounds,
        "points_destroyed": float(result.points_destroyed[0]),
        "points_destroyed_per_100": float(result.points_destroyed_per_100[0]) if attacker.cost else None,
    }
    return MatchupResult(attacker, target, scenario, phase.value, [float(p) for p in result.slain_dist[0]], summary)
