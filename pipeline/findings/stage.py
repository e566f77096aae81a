"""The findings stage: every rule over the run's frames and parse report -> the `findings` frame,
each finding's first release carried over from the previous release in the same output folder."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import polars as pl

from pipeline.findings import points, profiles, sources, typos, units, weapons
from pipeline.findings.found import Found, Locator, sole
from pipeline.publish.previous import PreviousRelease
from pipeline.sources.report import ParseReport
from pipeline.store.tables import records_frame, sort_by_key
from schemas.findings import Finding


def found(frames: Mapping[str, pl.DataFrame], report: ParseReport | None) -> Iterator[Found]:
    """Every rule's findings, category by category (docs/findings.md)."""
    yield from weapons.weapon_findings(frames)
    yield from points.points_fall(frames)
    yield from points.points_size_twice(frames, report)
    yield from profiles.invuln_one_source(frames)
    yield from typos.loose_values(frames, report)
    yield from typos.misspelt_abilities(frames)
    yield from units.units_without_weapons(frames)
    yield from sources.conflicts(frames)
    yield from sources.check_shortfalls(frames)


def first_seen(previous: PreviousRelease | None) -> dict[str, str]:
    """finding_id -> the release it first appeared in, as the previous release published it."""
    table = previous.table("findings") if previous is not None else None
    if table is None or "first_seen_version" not in table.columns:
        return {}
    return dict(zip(table["finding_id"].to_list(), table["first_seen_version"].to_list(), strict=True))


def records(finds: Iterable[Found], locator: Locator, seen: Mapping[str, str], version: str) -> list[Finding]:
    """Finding records, one per id (the first rule to give an id keeps it)."""
    kept: dict[str, Finding] = {}
    for item in finds:
        finding_id = item.finding_id
        if finding_id in kept:
            continue
        kept[finding_id] = Finding(
            finding_id=finding_id,
            category=item.category,
            severity=item.severity,
            source_id=sole([p.source_id for p in item.places]),
            location=locator.location(item.places),
            unit_id=item.unit_ids[0] if len(item.unit_ids) == 1 else None,
            unit_ids=list(item.unit_ids),
            subject=item.subject,
            values=dict(item.values),
            message=item.message,
            first_seen_version=seen.get(finding_id, version),
        )
    return list(kept.values())


def findings_frame(
    frames: Mapping[str, pl.DataFrame], report: ParseReport | None, previous: PreviousRelease | None, version: str
) -> pl.DataFrame:
    """The `findings` table."""
    rows = records(found(frames, report), Locator(frames["sources"]), first_seen(previous), version)
    return sort_by_key(records_frame(Finding, rows), Finding)
