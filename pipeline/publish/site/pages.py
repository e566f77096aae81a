"""What each page shows, gathered once from the run's frames: per unit its golden rows, sources,
conflicts, findings and heatmaps; per faction its units; the findings by category; the search index."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from markupsafe import Markup

from pipeline.damage.scenarios import SCENARIOS
from pipeline.publish.factions import ability_rules, faction_file_names, leaders, rule_for
from pipeline.publish.site.heatmap import Grid, heatmap_svg
from pipeline.publish.site.matchups import vs_reference_maps
from pipeline.publish.site.safe import unit_path
from schemas.findings import CATEGORIES

Row = dict[str, Any]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def grouped(frame: pl.DataFrame | None, key: str) -> dict[str, list[Row]]:
    found: dict[str, list[Row]] = defaultdict(list)
    if frame is not None:
        for row in frame.to_dicts():
            found[row[key]].append(row)
    return found


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def faction_path(file_name: str) -> str:
    return f"factions/{file_name[: -len('.json')]}.html"


def _reference_labels(frames: Mapping[str, pl.DataFrame]) -> dict[str, str]:
    """Reference profile id -> its short name (`GEQ`), in the file's order."""
    rows = frames["reference_profiles"].sort("line").select("profile_id", "name").rows()
    return {profile_id: name.split(" (")[0] for profile_id, name in rows}


Damage = dict[str, dict[str, dict[str, list[float | None]]]]


def _damage(frames: Mapping[str, pl.DataFrame], profiles: Sequence[str]) -> Damage:
    """unit_id -> weapon_id -> scenario -> damage against each reference profile, in `profiles` order
    (golden weapons only)."""
    found: Damage = {}
    frame = frames.get("damage_vs_reference")
    if frame is None or frame.is_empty():
        return found
    order = pl.DataFrame({"profile_id": list(profiles), "_o": list(range(len(profiles)))})
    rows = (
        frame.filter(pl.col("golden"))
        .select("unit_id", "weapon_id", "scenario", "profile_id", "damage")
        .join(order, on="profile_id", how="inner")
        .sort("unit_id", "weapon_id", "scenario", "_o")
    )
    width = len(profiles)
    positions = rows["_o"].to_numpy()
    if not width or len(positions) % width or not (positions.reshape(-1, width) == np.arange(width)).all():
        return _damage_grouped(rows, profiles)
    damage = rows["damage"].to_list()  # NULL stays None
    keys = rows.select("unit_id", "weapon_id", "scenario").gather_every(width).iter_rows()
    for row, (unit_id, weapon_id, scenario) in enumerate(keys):
        found.setdefault(unit_id, {}).setdefault(weapon_id, {})[scenario] = damage[row * width : (row + 1) * width]
    return found


def _damage_grouped(rows: pl.DataFrame, profiles: Sequence[str]) -> Damage:
    """`_damage` when some weapon lacks a reference profile's row: grouped, each missing value None."""
    found: Damage = {}
    grouped_rows = rows.group_by("unit_id", "weapon_id", "scenario", maintain_order=True).agg("profile_id", "damage")
    for unit_id, weapon_id, scenario, ids, damage in grouped_rows.iter_rows():
        by_id = dict(zip(ids, damage, strict=True))
        found.setdefault(unit_id, {}).setdefault(weapon_id, {})[scenario] = [by_id.get(p) for p in profiles]
    return found


def _changed(before: Sequence[float | None], after: Sequence[float | None]) -> bool:
    return any((a is None) != (b is None) or (a is not None and b is not None and abs(a - b) > 0.005)
               for a, b in zip(before, after, strict=True))  # fmt: skip


def damage_maps(weapons: list[Row], damage: Mapping[str, Mapping[str, list[float | None]]],
                labels: Sequence[str]) -> tuple[list[Markup], list[str]]:  # fmt: skip
    """The default scenario with every weapon, then each other scenario with the weapons whose damage
    changes in it; and the scenarios in which no weapon's damage changes."""
    rows = [w for w in weapons if SCENARIOS[0] in damage.get(w["weapon_id"], {})]
    maps, unchanged = [], []
    for scenario in SCENARIOS:
        base = SCENARIOS[0]
        shown = [w for w in rows if scenario == base or _changed(damage[w["weapon_id"]][base],
                                                                 damage[w["weapon_id"]].get(scenario, []))]  # fmt: skip
        if not shown:
            unchanged.append(scenario)
            continue
        title = scenario if scenario == base else f"{scenario} (weapons whose damage changes)"
        grid = Grid(title, [f"{w['name']} ({w['kind']})" for w in shown], labels,
                    [damage[w["weapon_id"]][scenario] for w in shown])  # fmt: skip
        maps.append(heatmap_svg(grid))
    return maps, unchanged if rows else []


def _profile(row: Row) -> Row:
    invuln = f"{row['invuln']}+" if row["invuln"] is not None else "-"
    if row["invuln_condition"]:
        invuln += f" ({row['invuln_condition']})"
    if row["invuln_melee"] is not None:
        invuln += f", {row['invuln_melee']}+ melee"
    low, high = row["min_models"], row["max_models"]
    models = "" if low is None else str(low) if low == high or high is None else f"{low}-{high}"
    return {**row, "invuln_text": invuln, "models_text": models}


def _weapon(row: Row) -> Row:
    reach = "Melee" if row["kind"] == "melee" else f'{row["range_inches"]}"'
    return {**row, "range_text": reach, "abilities": row["abilities"] or []}


def _ability_rules(weapons: list[Row], rules: Mapping[str, Row]) -> list[tuple[str, str]]:
    texts: dict[str, str] = {}
    for weapon in weapons:
        for ability in weapon["abilities"]:
            rule = rule_for(ability, rules)
            if rule is not None:
                texts.setdefault(ability, rule["text"])
    return sorted(texts.items())


def _points(row: Row) -> Row:
    composition = _json(row["composition"]) or {}
    return {**row, "composition_text": ", ".join(f"{n} {name}" for name, n in composition.items())}


def _conflict(row: Row) -> Row:
    return {**row, "pairs": sorted((_json(row["values"]) or {}).items())}


def _findings(frame: pl.DataFrame | None) -> list[Row]:
    if frame is None:
        return []
    rows = frame.to_dicts()
    rows.sort(key=lambda r: (CATEGORIES.index(r["category"]), SEVERITY_ORDER[r["severity"]], r["message"]))
    return rows


def _link(unit: Row | None) -> Row | None:
    return None if unit is None else {"name": unit["name"], "url": unit["url"]}


class Gatherer:
    """Groups the frames once; `unit(row)` then builds one unit page's data."""

    def __init__(self, frames: Mapping[str, pl.DataFrame]) -> None:
        self.frames = frames
        self.profiles = grouped(frames.get("unit_profiles"), "unit_id")
        self.weapons = grouped(frames.get("unit_weapons"), "unit_id")
        self.points = grouped(frames.get("unit_points"), "unit_id")
        self.conflicts = grouped(frames.get("source_conflicts"), "unit_id")
        self.sheets = grouped(frames.get("datasheets"), "unit_id")
        unit_of = {d: u for u, rows in self.sheets.items() for d in (r["datasheet_id"] for r in rows)}
        self.leads, self.led_by = leaders(frames, unit_of)
        self.keywords = self._keywords(unit_of)
        self.labels = _reference_labels(frames)
        self.damage = _damage(frames, list(self.labels))
        self.rules = ability_rules(frames)
        self.paths = {s: p for s, p in zip(frames["sources"]["source_id"], frames["sources"]["path"], strict=True)}
        self.findings = _findings(frames.get("findings"))
        self.findings_of: dict[str, list[Row]] = defaultdict(list)
        for finding in self.findings:
            for unit_id in finding["unit_ids"] or []:
                self.findings_of[unit_id].append(finding)

    def _keywords(self, unit_of: Mapping[str, str]) -> dict[str, list[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for datasheet_id, keyword in self.frames["keywords"].select("datasheet_id", "keyword").iter_rows():
            unit = unit_of.get(datasheet_id)
            if unit:
                found[unit].add(keyword)
        return {k: sorted(v) for k, v in found.items()}

    def _where(self, sheet: Row) -> str:
        path = self.paths.get(sheet["source_id"], sheet["source_id"])
        return f"{path}:{sheet['line']}" if sheet.get("line") else str(path)

    def unit(self, unit: Row, by_id: Mapping[str, Row], vs_reference: Any, matchups: Any) -> Row:
        unit_id = unit["unit_id"]
        order = {d: i for i, d in enumerate(unit["datasheet_ids"])}
        weapons = [_weapon(w) for w in self.weapons.get(unit_id, [])]
        sheets = sorted(self.sheets.get(unit_id, []), key=lambda s: order.get(s["datasheet_id"], len(order)))
        return {
            **unit,
            "home": _link(by_id.get(unit["home_unit_id"] or "")),
            "profiles": [_profile(p) for p in sorted(self.profiles.get(unit_id, []), key=lambda p: p["position"])],
            "weapons": weapons,
            "ability_rules": _ability_rules(weapons, self.rules),
            **dict(
                zip(
                    ("heatmaps", "unchanged"),
                    damage_maps(weapons, self.damage.get(unit_id, {}), list(self.labels.values())),
                    strict=True,
                )
            ),
            "vs_reference": vs_reference_maps(vs_reference, unit_id, self.labels),
            "matchups_url": None
            if matchups is None
            else (f"matchups/{unit['url'][6:]}" if unit_id in matchups else ""),
            "points": [_points(p) for p in sorted(self.points.get(unit_id, []), key=lambda p: p["models"])],
            "keywords": self.keywords.get(unit_id, []),
            "leads": [_link(by_id[u]) for u in self.leads.get(unit_id, []) if u in by_id],
            "led_by": [_link(by_id[u]) for u in self.led_by.get(unit_id, []) if u in by_id],
            "sheets": [{**s, "where": self._where(s)} for s in sheets],
            "conflicts": [_conflict(c) for c in sorted(self.conflicts.get(unit_id, []), key=lambda c: c["field"])],
            "findings": self.findings_of.get(unit_id, []),
        }


def unit_rows(frames: Mapping[str, pl.DataFrame]) -> list[Row]:
    units = frames["units"].sort("faction", "name", "unit_id").to_dicts()
    files = faction_file_names(u["faction"] for u in units)
    for unit in units:
        unit["url"] = unit_path(unit["unit_id"])
        unit["faction_url"] = faction_path(files[unit["faction"]])
    return units


def faction_rows(units: Iterable[Row], findings_of: Mapping[str, list[Row]]) -> list[Row]:
    counts: Counter[str] = Counter()
    legends: Counter[str] = Counter()
    found: Counter[str] = Counter()
    urls: dict[str, str] = {}
    for unit in units:
        counts[unit["faction"]] += 1
        legends[unit["faction"]] += int(bool(unit["legend"]))
        found[unit["faction"]] += len(findings_of.get(unit["unit_id"], []))
        urls[unit["faction"]] = unit["faction_url"]
    return [{"name": f, "url": urls[f], "units": counts[f], "legends": legends[f], "findings": found[f]}
            for f in sorted(counts)]  # fmt: skip


def search_index(units: Iterable[Row], weapons: Mapping[str, list[Row]]) -> list[Row]:
    """`n` name, `k` kind (unit or weapon), `w` where (faction or unit), `u` the unit page."""
    entries: list[Row] = []
    for unit in units:
        entries.append({"n": unit["name"], "k": "unit", "w": unit["faction"], "u": unit["url"]})
        for name in sorted({w["name"] for w in weapons.get(unit["unit_id"], [])}):
            entries.append({"n": name, "k": "weapon", "w": unit["name"], "u": unit["url"]})
    return entries
