"""The JSON Schema of `feed/factions/*.json`, composed from the table row schemas it nests."""

from __future__ import annotations

import copy
from typing import Any

from pipeline.publish.factions import DAMAGE_OUTPUTS, LINKED, SOURCE_CHILDREN
from pipeline.publish.formats import JSON_SCHEMA_DIALECT, schema_id, table_row_schema
from pipeline.store.ddl import MODEL_BY_TABLE
from schemas.columns import ID_PATTERNS

NAME = "faction_document"

Schema = dict[str, Any]


def _row(table: str, *without: str) -> Schema:
    schema = copy.deepcopy(table_row_schema(MODEL_BY_TABLE[table]))
    schema.pop("title", None)
    for column in without:
        schema["properties"].pop(column, None)
    schema["required"] = sorted(schema["properties"])
    return schema


def _extended(base: Schema, extra: dict[str, Schema], description: str) -> Schema:
    schema = copy.deepcopy(base)
    schema["properties"].update(extra)
    schema["required"] = sorted(schema["properties"])
    schema["description"] = description
    return schema


def _ids(column: str, description: str) -> Schema:
    return {"type": "array", "items": {"type": "string", "pattern": ID_PATTERNS[column]}, "description": description}


def _damage() -> Schema:
    outputs = {k: {"type": ["number", "null"]} for k in DAMAGE_OUTPUTS}
    cell = {"type": "object", "properties": outputs, "required": list(DAMAGE_OUTPUTS), "additionalProperties": False}
    per_profile = {"type": "object", "additionalProperties": cell, "propertyNames": {"pattern": "^ref:"}}
    return {
        "type": "object",
        "additionalProperties": per_profile,
        "description": "scenario -> reference profile -> expected damage of one use (damage_vs_reference).",
    }


def _source() -> Schema:
    nested = {t: {"type": "array", "items": _row(t, "datasheet_id")} for t in SOURCE_CHILDREN}
    return _extended(_row("datasheets", "unit_id"), nested, "One datasheet of the unit, with its per-source rows.")


def _card() -> Schema:
    weapon = _extended(_row("unit_weapons", "unit_id"), {"damage_vs_reference": _damage()}, "A golden weapon.")
    extra: dict[str, Schema] = {
        "profiles": {"type": "array", "items": _row("unit_profiles", "unit_id")},
        "weapons": {"type": "array", "items": weapon},
        "unit_points": {"type": "array", "items": _row("unit_points", "unit_id")},
        "leads": _ids("unit_id", "Units this unit can lead (Leader)."),
        "led_by": _ids("unit_id", "Units that can lead this unit."),
        "wargear_options": {"type": "array", "items": {"type": "string"}, "description": "Wargear options, in order."},
        "sources": {"type": "array", "items": _source()},
    }
    for key, (_, column, _) in LINKED.items():
        extra[key] = _ids(column, f"{column} of the unit's datasheets.")
    return _extended(_row("units"), extra, "One unit: the golden row, its rows and sources.")


def faction_document_schema() -> Schema:
    rule = {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "rule_id": {"type": "string", "pattern": ID_PATTERNS["rule_id"]},
                    "title": {"type": "string"},
                    "text": {"type": "string"},
                },
                "required": ["rule_id", "title", "text"],
                "additionalProperties": False,
            },
            {"type": "null"},
        ]
    }
    properties: dict[str, Schema] = {
        "faction": {"type": "string", "description": "Display name of the faction (units.faction)."},
        "units": {"type": "array", "items": _card()},
        "weapon_abilities": {
            "type": "object",
            "additionalProperties": rule,
            "description": "Every weapon ability the faction's weapons use -> its rule (null when none is named so).",
        },
    }
    for _, (_, _, table) in LINKED.items():
        properties[table] = {"type": "array", "items": _row(table)}
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": schema_id(NAME),
        "title": NAME,
        "description": "feed/factions/<faction>.json: one card per unit of the faction.",
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }
