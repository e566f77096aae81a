"""The DuckDB schema, in one place, derived from the record models.

Columns and their types come from the Pydantic models (the contract), so the
database, the Parquet files and the JSON Schemas cannot drift apart. Keys and
foreign keys are declared here.
"""

from __future__ import annotations

import typing
from typing import Any

import polars as pl

from pipeline.frame_types import table_schema
from schemas.findings import Finding
from schemas.golden import DamageVsReference, IdAlias, UnitPoints, UnitProfile, UnitWeapon
from schemas.records import (
    Ability,
    CompositionLine,
    DamageCell,
    Datasheet,
    DatasheetDetachmentAbility,
    DatasheetEnhancement,
    DatasheetLoadout,
    DatasheetStratagem,
    DetachmentAbility,
    Enhancement,
    Keyword,
    LeaderLink,
    LoadoutIssue,
    ModelProfile,
    Points,
    QuarantineRow,
    Record,
    ReferenceProfile,
    Rule,
    RuleOccurrence,
    Source,
    SourceCheck,
    SourceConflict,
    Stratagem,
    Unit,
    WargearOption,
    Weapon,
    WeaponAbilityRow,
)
from schemas.units import UnitLoadout, UnitLoadoutIssue, UnitMatchup, UnitVsReference

#: Published tables in load order (parents before children).
TABLE_MODELS: tuple[type[Record], ...] = (
    Source,
    Datasheet,
    Unit,
    ModelProfile,
    ReferenceProfile,
    Weapon,
    WeaponAbilityRow,
    Ability,
    Keyword,
    Points,
    UnitProfile,
    UnitWeapon,
    UnitPoints,
    UnitLoadout,
    UnitLoadoutIssue,
    Stratagem,
    DatasheetStratagem,
    Rule,
    RuleOccurrence,
    LeaderLink,
    WargearOption,
    CompositionLine,
    Enhancement,
    DetachmentAbility,
    DatasheetEnhancement,
    DatasheetDetachmentAbility,
    SourceConflict,
    SourceCheck,
    DatasheetLoadout,
    LoadoutIssue,
    IdAlias,
    DamageVsReference,
    Finding,
    UnitVsReference,
    QuarantineRow,
)

_ALL_MODELS: list[type[Record]] = [*TABLE_MODELS, DamageCell, UnitMatchup]
MODEL_BY_TABLE: dict[str, type[Record]] = {m.TABLE: m for m in _ALL_MODELS}

#: (child table, column) -> (parent table, column). Enforced by DuckDB.
FOREIGN_KEYS: dict[tuple[str, str], tuple[str, str]] = {
    ("model_profiles", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("weapons", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("weapon_abilities", "weapon_id"): ("weapons", "weapon_id"),
    ("abilities", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("keywords", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("points", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_stratagems", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_stratagems", "stratagem_id"): ("stratagems", "stratagem_id"),
    ("rule_occurrences", "rule_id"): ("rules", "rule_id"),
    ("leaders", "leader_id"): ("datasheets", "datasheet_id"),
    ("leaders", "attached_id"): ("datasheets", "datasheet_id"),
    ("wargear_options", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("unit_composition", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_enhancements", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_enhancements", "enhancement_id"): ("enhancements", "enhancement_id"),
    ("datasheet_detachment_abilities", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_detachment_abilities", "detachment_ability_id"): ("detachment_abilities", "detachment_ability_id"),
    ("unit_profiles", "unit_id"): ("units", "unit_id"),
    ("unit_weapons", "unit_id"): ("units", "unit_id"),
    ("unit_weapons", "weapon_id"): ("weapons", "weapon_id"),
    ("unit_points", "unit_id"): ("units", "unit_id"),
    ("damage_vs_reference", "unit_id"): ("units", "unit_id"),
    ("damage_vs_reference", "weapon_id"): ("weapons", "weapon_id"),
    ("findings", "unit_id"): ("units", "unit_id"),
    ("datasheet_loadouts", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("datasheet_loadouts", "weapon_id"): ("weapons", "weapon_id"),
    ("loadout_issues", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("unit_loadouts", "unit_id"): ("units", "unit_id"),
    ("unit_loadouts", "weapon_id"): ("weapons", "weapon_id"),
    ("unit_loadouts", "datasheet_id"): ("datasheets", "datasheet_id"),
    ("unit_loadout_issues", "unit_id"): ("units", "unit_id"),
}


#: Tables the pipeline computes (not parsed from input) whose keys and references DuckDB does not declare: unique
#: and referencing known units and weapons by construction, and checked by critical quality gates instead
#: (`expectations/<table>.json`). On their 1.2 M rows DuckDB's key and foreign-key indexes cost ≈ 5 CPU s a run
#: and half the DuckDB file (docs/dataset.md#conventions).
GATE_CHECKED_KEYS = frozenset({"damage_vs_reference", "unit_vs_reference"})


def quoted(name: str) -> str:
    """A table, view or column name as an SQL identifier (double quotes, any inside doubled)."""
    return '"' + name.replace('"', '""') + '"'


def not_null_columns(model: type[Record]) -> set[str]:
    """Columns the model requires (no None allowed)."""
    return {
        name
        for name, field in model.model_fields.items()
        if not field.exclude
        and type(None) not in typing.get_args(field.annotation)
        and field.annotation is not type(None)
    }


_DUCK: dict[Any, str] = {pl.String: "VARCHAR", pl.Int64: "BIGINT", pl.Float64: "DOUBLE", pl.Boolean: "BOOLEAN"}


def _duck_type(dtype: Any) -> str:
    """DuckDB type of a Polars dtype (instance or class)."""
    if isinstance(dtype, pl.List):
        return _duck_type(dtype.inner) + "[]"
    return _DUCK[dtype if isinstance(dtype, type) else type(dtype)]


def create_table_sql(model: type[Record]) -> str:
    """CREATE TABLE with types, NOT NULLs, primary key and foreign keys (none for `GATE_CHECKED_KEYS`)."""
    required = not_null_columns(model)
    columns = [
        f'"{name}" {_duck_type(dtype)}{" NOT NULL" if name in required else ""}'
        for name, dtype in table_schema(model).items()
    ]
    if model.TABLE in GATE_CHECKED_KEYS:
        return f"CREATE TABLE {model.TABLE} (\n  " + ",\n  ".join(columns) + "\n)"
    if model.KEY and set(model.KEY) <= required:
        columns.append(f"PRIMARY KEY ({', '.join(model.KEY)})")
    for (child, column), (parent, parent_col) in FOREIGN_KEYS.items():
        if child == model.TABLE:
            columns.append(f"FOREIGN KEY ({column}) REFERENCES {parent}({parent_col})")
    return f"CREATE TABLE {model.TABLE} (\n  " + ",\n  ".join(columns) + "\n)"
