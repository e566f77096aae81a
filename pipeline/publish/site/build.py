"""Render the explorer into `<release>/site/` with Jinja2 (autoescape on: every value from the data is
escaped unless it is markup we built from escaped parts). Reads the run's frames only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import polars as pl
from markupsafe import Markup

from pipeline.publish.site import pages
from pipeline.publish.site.heatmap import legend_svg
from pipeline.publish.site.matchups import VsReference, matchup_attackers, matchup_rows
from pipeline.publish.site.safe import SCRIPT, STYLE, content_security_policy, embedded_json
from pipeline.runtime import cyclic_gc_paused
from schemas.findings import CATEGORIES

SITE_DIR = "site"


@dataclass(frozen=True)
class SiteReport:
    """What the build wrote."""

    pages: int
    bytes: int

    def as_dict(self) -> dict[str, int]:
        return {"pages": self.pages, "bytes": self.bytes}


def _dash(value: object) -> object:
    return "-" if value is None else value


def _plus(value: object) -> str:
    return "-" if value is None else f"{value}+"


def _inch(value: object) -> str:
    return "-" if value is None else f'{value}"'


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline.publish.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(dash=_dash, plus=_plus, inch=_inch)
    return env


class Writer:
    """Renders templates into the site folder and counts pages and bytes."""

    def __init__(self, site: Path, version: str) -> None:
        self.site = site
        self.env = environment()
        self.common = {"csp": content_security_policy(), "style": Markup(STYLE), "script": Markup(SCRIPT),
                       "version": version}  # fmt: skip
        self.pages = 0
        self.bytes = 0

    def write(self, path: str, template: str, **context: Any) -> None:
        root = "../" * path.count("/")
        html = self.env.get_template(template).render(**self.common, root=root, **context)
        target = self.site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = html.encode("utf-8")
        target.write_bytes(data)
        self.pages += 1
        self.bytes += len(data)


def _findings_page(writer: Writer, findings: list[dict[str, Any]], by_id: Mapping[str, dict[str, Any]]) -> None:
    counts = Counter(f["category"] for f in findings)
    categories = []
    for name in CATEGORIES:
        rows = [{**f, "units": [by_id[u] for u in f["unit_ids"] or [] if u in by_id]} for f in findings
                if f["category"] == name]  # fmt: skip
        severity = rows[0]["severity"] if rows else ""
        categories.append({"name": name, "severity": severity, "count": counts[name], "rows": rows})
    writer.write("findings.html", "findings.html", categories=categories, total=len(findings))


def write_site(frames: Mapping[str, pl.DataFrame], release: Path, version: str) -> SiteReport:
    """Index, faction pages, a page per unit, the findings page, matchup pages when the release has them; with
    the cyclic GC paused (the pages' rows are acyclic dicts and lists, which collections would walk for nothing)."""
    with cyclic_gc_paused():
        return _write_pages(frames, release, version)


def _write_pages(frames: Mapping[str, pl.DataFrame], release: Path, version: str) -> SiteReport:
    writer = Writer(release / SITE_DIR, version)
    gather = pages.Gatherer(frames)
    units = pages.unit_rows(frames)
    by_id = {u["unit_id"]: u for u in units}
    vs_reference = VsReference(frames["unit_vs_reference"]) if "unit_vs_reference" in frames else None
    matchups = frames.get("unit_matchups")
    attackers = matchup_attackers(matchups)
    legend = legend_svg()
    for unit in units:
        page = gather.unit(unit, by_id, vs_reference, attackers)
        writer.write(unit["url"], "unit.html", u=page, legend=legend)
        if matchups is not None and page["matchups_url"]:
            rows = matchup_rows(matchups, unit["unit_id"], by_id)
            writer.write(page["matchups_url"], "matchups.html", u=unit, rows=rows, scenario="default")
    factions = pages.faction_rows(units, gather.findings_of)
    for faction in factions:
        members = [u for u in units if u["faction"] == faction["name"]]
        rows = [{**u, "findings": len(gather.findings_of.get(u["unit_id"], []))} for u in members]
        writer.write(faction["url"], "faction.html", faction=faction["name"], units=rows)
    _findings_page(writer, gather.findings, by_id)
    index = embedded_json(pages.search_index(units, gather.weapons))
    writer.write("index.html", "index.html", factions=factions, units_total=len(units),
                 findings_total=len(gather.findings), search_index=index)  # fmt: skip
    return SiteReport(writer.pages, writer.bytes)
