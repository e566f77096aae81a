"""The published formats of one release: Parquet, NDJSON feed, faction documents, JSON Schemas.

Everything is written in a fixed row order with no wall-clock values, so the same
inputs give byte-identical files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.ids import slug
from pipeline.store.ddl import MODEL_BY_TABLE
from schemas.records import Record

#: Tables not put in the NDJSON feed (too large; the feed has damage_vs_reference instead).
FEED_EXCLUDED = {"damage_matrix"}


def write_parquet_tables(frames: Mapping[str, pl.DataFrame], release: Path) -> None:
    """`<table>.parquet` (zstd) for every table but the damage matrix."""
    for table, frame in sorted(frames.items()):
        if table in FEED_EXCLUDED:
            continue
        frame.write_parquet(release / f"{table}.parquet", compression="zstd", statistics=False)


def write_feed(frames: Mapping[str, pl.DataFrame], damage_vs_reference: pl.DataFrame | None, release: Path) -> None:
    """`feed/<table>.ndjson` for every table, plus `damage_vs_reference`."""
    feed = release / "feed"
    feed.mkdir(exist_ok=True)
    for table, frame in sorted(frames.items()):
        if table not in FEED_EXCLUDED:
            frame.write_ndjson(feed / f"{table}.ndjson")
    if damage_vs_reference is not None:
        damage_vs_reference.write_ndjson(feed / "damage_vs_reference.ndjson")


def _nest(frame: pl.DataFrame, key: str) -> dict[str, list[dict[str, Any]]]:
    """Rows of a child table grouped by their datasheet id."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in frame.drop([c for c in ("source_id", "line") if c in frame.columns]).to_dicts():
        grouped.setdefault(row[key], []).append(row)
    return grouped


FACTION_CHILDREN = ("model_profiles", "weapons", "abilities", "keywords", "points", "unit_composition")


def write_faction_documents(frames: Mapping[str, pl.DataFrame], release: Path) -> list[str]:
    """One JSON document per faction for apps: datasheets with their children nested."""
    folder = release / "feed" / "factions"
    folder.mkdir(parents=True, exist_ok=True)
    children = {t: _nest(frames[t], "datasheet_id") for t in FACTION_CHILDREN if t in frames}
    written: list[str] = []
    datasheets = frames["datasheets"]
    names = faction_document_names(datasheets["faction"].unique().to_list())
    for faction in sorted(names):
        sheets = []
        for sheet in datasheets.filter(pl.col("faction") == faction).to_dicts():
            for table, grouped in children.items():
                sheet[table] = grouped.get(sheet["datasheet_id"], [])
            sheets.append(sheet)
        document = {"faction": faction, "datasheets": sheets}
        name = names[faction]
        (folder / name).write_text(json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        written.append(name)
    return written


def faction_document_names(factions: Iterable[str]) -> dict[str, str]:
    """Faction -> its document's file name in `feed/factions/` (the release gate checks they are distinct)."""
    return {faction: f"{slug(faction)}.json" for faction in factions}


def planned_outputs(frames: Mapping[str, pl.DataFrame]) -> dict[str, list[str]]:
    """Every file a release will hold, by relative path -> what would be written there (one thing
    each, unless two collide: `quality/release_checks.output_names_unique`)."""
    outputs: dict[str, list[str]] = {}

    def add(path: str, what: str) -> None:
        outputs.setdefault(path, []).append(what)

    for table in sorted(frames):
        if table not in FEED_EXCLUDED:
            add(f"{table}.parquet", f"table {table}")
            add(f"feed/{table}.ndjson", f"table {table}")
        add(f"schemas/{table}.schema.json", f"table {table}")
    add("feed/damage_vs_reference.ndjson", "damage_vs_reference")
    add("schemas/damage_matrix.schema.json", "table damage_matrix")
    factions = frames["datasheets"]["faction"].unique().to_list() if "datasheets" in frames else []
    for faction, name in faction_document_names(factions).items():
        add(f"feed/factions/{name}", f"faction {faction}")
    return outputs


def write_json_schemas(release: Path, tables: list[str]) -> dict[str, str]:
    """`schemas/<table>.schema.json` from the Pydantic models; returns table -> schema text."""
    folder = release / "schemas"
    folder.mkdir(exist_ok=True)
    texts: dict[str, str] = {}
    for table in sorted(tables):
        model = MODEL_BY_TABLE.get(table)
        if model is None:
            continue
        schema = published_json_schema(model)
        schema["title"] = table
        text = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / f"{table}.schema.json").write_text(text)
        texts[table] = text
    return texts


def published_json_schema(model: type[Record]) -> dict[str, Any]:
    """The model's JSON Schema as published: excluded fields out, derived columns in."""
    schema = model.model_json_schema(mode="serialization")
    for name, field in model.model_fields.items():
        if field.exclude:
            schema["properties"].pop(name, None)
    for name, kind in model.EXTRA_COLUMNS.items():
        json_type = {float: "number", int: "integer", str: "string"}.get(kind, "string")
        schema["properties"][name] = {"type": json_type, "title": name, "readOnly": True}
    if "$defs" in schema and "$ref" not in json.dumps(schema["properties"]):
        del schema["$defs"]
    return schema
