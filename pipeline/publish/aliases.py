"""`id_aliases`: every id that changed since the previous release, or was merged into another.

A unit id of the previous release that is gone is aliased to the unit(s) its datasheets belong
to now (datasheet ids are the sources' own and stable); aliases of earlier releases are kept,
followed to today's ids. Policy: docs/ids.md#aliases.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipeline.publish.previous import PreviousRelease
from pipeline.store.ddl import table_schema
from schemas.golden import IdAlias

RENAMED = "unit id changed: its datasheets belong to this unit now"
SPLIT = "unit split: its datasheets belong to several units now"


def _unit_rows(units: pl.DataFrame, id_name: str) -> pl.DataFrame:
    return units.select(pl.col("unit_id").alias(id_name), pl.col("datasheet_ids").alias("datasheet_id")).explode(
        "datasheet_id"
    )


def unit_aliases(previous_units: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """(old_id, new_id, reason) for previous unit ids that no longer exist."""
    gone = previous_units.join(units.select("unit_id"), on="unit_id", how="anti")
    pairs = (
        _unit_rows(gone, "old_id")
        .join(_unit_rows(units, "new_id"), on="datasheet_id", how="inner")
        .select("old_id", "new_id")
        .unique()
    )
    fan_out = pairs.group_by("old_id").agg(pl.len().alias("n"))
    return (
        pairs.join(fan_out, on="old_id")
        .with_columns(pl.when(pl.col("n") > 1).then(pl.lit(SPLIT)).otherwise(pl.lit(RENAMED)).alias("reason"))
        .with_columns(pl.lit("unit").alias("kind"))
        .select("old_id", "new_id", "kind", "reason")
    )


def _followed(old: pl.DataFrame, current_ids: set[str], now: pl.DataFrame) -> pl.DataFrame:
    """Earlier aliases pointed at today's ids: kept when their new id still exists, or re-aimed
    through an alias of this release."""
    live = old.filter(pl.col("new_id").is_in(list(current_ids)))
    hop = now.select(pl.col("old_id").alias("new_id"), pl.col("new_id").alias("next_id"))
    moved = old.join(hop, on="new_id", how="inner").with_columns(pl.col("next_id").alias("new_id")).drop("next_id")
    return pl.concat([live, moved], how="vertical_relaxed")


def with_id_aliases(
    frames: Mapping[str, pl.DataFrame], previous: PreviousRelease | None, version: str
) -> dict[str, pl.DataFrame]:
    """Frames with `id_aliases` complete: this release's merges (reconcile), units changed since
    the previous release, earlier aliases followed; `since_version` the first release holding each."""
    schema = table_schema(IdAlias)
    merged = frames["id_aliases"].select("old_id", "new_id", "kind", "reason")
    units_before = previous.table("units") if previous is not None else None
    published = previous.table("id_aliases") if previous is not None else None
    earlier = published if published is not None else pl.DataFrame(schema=schema)
    changed = unit_aliases(units_before, frames["units"]) if units_before is not None else merged.clear()
    now = pl.concat([merged, changed], how="vertical_relaxed")
    current = set(frames["units"]["unit_id"].to_list()) | set(frames["stratagems"]["stratagem_id"].to_list())
    kept = _followed(earlier.select("old_id", "new_id", "kind", "reason", "since_version"), current, now)
    since = kept.select("old_id", "new_id", "since_version").unique(["old_id", "new_id"], keep="first")
    fresh = now.join(since, on=["old_id", "new_id"], how="left").with_columns(
        pl.col("since_version").fill_null(version)
    )
    rows = pl.concat([kept, fresh.select(kept.columns)], how="vertical_relaxed").unique(
        ["old_id", "new_id"], keep="first", maintain_order=True
    )
    rows = rows.filter((pl.col("old_id") != pl.col("new_id")) & ~pl.col("old_id").is_in(list(current)))
    full = rows.with_columns(
        pl.lit(None, dtype=pl.String).alias("source_id"), pl.lit(None, dtype=pl.Int64).alias("line")
    )
    table = full.select([pl.col(c).cast(t) for c, t in schema.items()]).sort("old_id", "new_id")
    return {**frames, "id_aliases": table}
