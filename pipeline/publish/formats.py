"""The published formats of one release: Parquet, NDJSON feed, JSON Schemas.

Everything is written in a fixed row order with no wall-clock values, so the same
inputs give byte-identical files. JSON-valued columns are JSON text in DuckDB and
Parquet and JSON objects in the feed.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Union

import polars as pl

from pipeline.ids import slug
from pipeline.publish.compact_json import compact_json
from pipeline.publish.direct_write import write_direct
from pipeline.publish.table_reuse import TableReuse
from pipeline.reconcile.factions import NO_FACTION_NAME
from pipeline.store.ddl import MODEL_BY_TABLE
from schemas.columns import DESCRIPTIONS, ID_PATTERNS
from schemas.records import Record

#: Tables not put in the NDJSON feed (too large; the feed has damage_vs_reference instead).
FEED_EXCLUDED = {"damage_matrix"}
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_id(name: str) -> str:
    """`$id` of a published schema: a URN, the same in every release."""
    return f"urn:dataslate:schema:{name}"


def json_columns(model: type[Record]) -> list[str]:
    """Columns holding a JSON object (dict fields): text in Parquet and DuckDB, objects in the feed."""
    found = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if typing.get_origin(annotation) in (Union, types.UnionType):
            annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        if typing.get_origin(annotation) is dict:
            found.append(name)
    return found


def feed_rows(frame: pl.DataFrame, model: type[Record] | None) -> Iterator[dict[str, Any]]:
    """Rows as published in the feed: JSON columns parsed into objects."""
    parsed = json_columns(model) if model is not None else []
    for row in frame.iter_rows(named=True):
        for name in parsed:
            if row.get(name) is not None:
                row[name] = json.loads(row[name])
        yield row


def feed_tables(frames: Mapping[str, pl.DataFrame]) -> list[str]:
    """The tables with a feed file (every one but the damage matrix), sorted."""
    return sorted(table for table in frames if table not in FEED_EXCLUDED)


#: A frame at least this large has its feed file written around the page cache (`direct_write.py`)...
DIRECT_MIN_BYTES = 32 << 20
#: ... serialised this many rows at a time (≈ 12 MB of `damage_vs_reference`'s JSON).
FEED_CHUNK_ROWS = 20_000


def write_feed_table(table: str, frame: pl.DataFrame, path: Path) -> str | None:
    """One table's NDJSON feed file: Polars' writer (a large frame's in chunks, written around the page cache),
    or row by row when JSON columns become objects. The file's sha256 when it was hashed while written."""
    model = MODEL_BY_TABLE.get(table)
    if model is not None and json_columns(model):
        with path.open("w", encoding="utf-8") as out:
            for row in feed_rows(frame, model):
                out.write(compact_json(row, sort_keys=False) + "\n")
        return None
    if frame.estimated_size() >= DIRECT_MIN_BYTES:
        return write_direct(path, _ndjson_chunks(frame))
    frame.write_ndjson(path)
    return None


def _ndjson_chunks(frame: pl.DataFrame) -> Iterator[bytes]:
    """The frame's NDJSON, `FEED_CHUNK_ROWS` rows at a time (every row ends its line: the chunks make the whole)."""
    for start in range(0, frame.height, FEED_CHUNK_ROWS):
        out = io.BytesIO()
        frame.slice(start, FEED_CHUNK_ROWS).write_ndjson(out)
        yield out.getvalue()


def write_feed(frames: Mapping[str, pl.DataFrame], release: Path, reuse: TableReuse | None = None) -> dict[str, str]:
    """`feed/<table>.ndjson` for every table (damage_vs_reference included, the matrix not), each placed from the
    cache instead when `reuse` knows its table unchanged (`table_reuse.py`); their sha256 by relative path."""
    reuse = reuse if reuse is not None else TableReuse.of(None, {})
    (release / "feed").mkdir(exist_ok=True)
    hashes = {}
    for table in feed_tables(frames):
        path = release / "feed" / f"{table}.ndjson"
        write = functools.partial(write_feed_table, table, frames[table])
        hashes[path.relative_to(release).as_posix()] = reuse.feed_file(table, path, write)
    return hashes


def faction_document_names(factions: Iterable[str]) -> dict[str, str]:
    """Faction -> its document's file name in `feed/factions/` (the release gate checks they are distinct)."""
    return {faction: f"{slug(faction)}.json" for faction in factions}


def document_factions(frames: Mapping[str, pl.DataFrame]) -> list[str]:
    """The factions that get a document: every `units.faction` but the pseudo faction of no faction."""
    units = frames.get("units")
    return sorted(set(units["faction"].to_list()) - {NO_FACTION_NAME}) if units is not None else []


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
    add("schemas/damage_matrix.schema.json", "table damage_matrix")
    add("schemas/faction_document.schema.json", "faction document schema")
    add("feed/index.json", "feed index")
    for faction, name in faction_document_names(document_factions(frames)).items():
        add(f"feed/factions/{name}", f"faction {faction}")
    return outputs


def write_json_schemas(release: Path, tables: list[str], extra: Mapping[str, dict[str, Any]]) -> dict[str, str]:
    """`schemas/<name>.schema.json`: every table's, from its Pydantic model, and `extra` ones
    (the faction document's); returns name -> schema text."""
    folder = release / "schemas"
    folder.mkdir(exist_ok=True)
    schemas = {t: published_json_schema(MODEL_BY_TABLE[t]) for t in sorted(tables) if t in MODEL_BY_TABLE}
    schemas.update(extra)
    texts: dict[str, str] = {}
    for name, schema in sorted(schemas.items()):
        text = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / f"{name}.schema.json").write_text(text)
        texts[name] = text
    return texts


def _with_pattern(prop: dict[str, Any], pattern: str) -> None:
    """Set `pattern` on the string branch of a (possibly nullable) property."""
    if prop.get("type") == "string":
        prop["pattern"] = pattern
    for branch in prop.get("anyOf", []):
        if branch.get("type") == "string":
            branch["pattern"] = pattern


def table_row_schema(model: type[Record]) -> dict[str, Any]:
    """A feed row of the table: its columns (described, ids with their pattern), nothing else."""
    schema = model.model_json_schema(mode="serialization")
    props: dict[str, Any] = schema["properties"]
    for name, field in model.model_fields.items():
        if field.exclude:
            props.pop(name, None)
    for name, kind in model.EXTRA_COLUMNS.items():
        json_type = {float: "number", int: "integer", str: "string"}.get(kind, "string")
        props[name] = {"type": json_type, "title": name, "readOnly": True, "description": f"Derived: {name}."}
    for name, prop in props.items():
        if "description" not in prop and name in DESCRIPTIONS:
            prop["description"] = DESCRIPTIONS[name]
        if name in ID_PATTERNS:
            _with_pattern(prop, ID_PATTERNS[name])
    schema["required"] = sorted(props)  # every column is in every row (NULL where it has no value)
    schema["additionalProperties"] = False
    if "$defs" in schema and "$ref" not in json.dumps(props):
        del schema["$defs"]
    return schema


def published_json_schema(model: type[Record]) -> dict[str, Any]:
    """The table's JSON Schema as published: one feed row, with `$id`, title and description."""
    schema = copy.deepcopy(table_row_schema(model))
    doc = (model.__doc__ or "").strip().splitlines()
    schema.update(
        {
            "$schema": JSON_SCHEMA_DIALECT,
            "$id": schema_id(model.TABLE),
            "title": model.TABLE,
            "description": doc[0] if doc else f"One row of `{model.TABLE}` (docs/dataset.md).",
        }
    )
    return schema
