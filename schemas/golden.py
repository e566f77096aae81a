"""The golden layer's record models: one dataset at unit level, every value with its provenance.

Per-source tables (schemas/records.py) stay the provenance; these are keyed by `unit_id`.
What each column means: docs/dataset.md#the-golden-layer.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from schemas.records import UNIT_ID_PATTERN, DamageCell, InvulnCondition, Record, Weapon

PROVENANCE = "field -> 'source_id (why that source)' for every value with one."


class UnitProfile(Record):
    """One model profile of a golden unit, matched across sources profile by profile."""

    TABLE = "unit_profiles"
    KEY = ("unit_id", "profile_name")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit (units.unit_id).")
    profile_name: str = Field(min_length=1, description="Normalised display name of the model profile.")
    position: int = Field(ge=1, description="1 = the unit's main profile (the statline of `units`).")
    profile_id: str = Field(description="model_profiles.profile_id of the freshest source's profile.")
    profile_ids: list[str] = Field(default_factory=list, description="Every matched source profile, by precedence.")
    movement: int | None = Field(default=None, ge=0, le=100, description="Inches.")
    toughness: int | None = Field(default=None, ge=1, le=20)
    save: int | None = Field(default=None, ge=2, le=7, description="3 means 3+.")
    invuln: int | None = Field(default=None, ge=2, le=6, description="Invulnerable save.")
    invuln_condition: InvulnCondition | None = Field(default=None, description="`ranged`/`melee` if only against one.")
    invuln_melee: int | None = Field(
        default=None, ge=2, le=6, description="Invulnerable save against melee attacks where it differs from `invuln`."
    )
    wounds: int | None = Field(default=None, ge=1, le=100)
    leadership: int | None = Field(default=None, ge=2, le=12, description="6 means 6+.")
    oc: int | None = Field(default=None, ge=0, le=50)
    fnp: int | None = Field(default=None, ge=2, le=6, description="Feel No Pain X+.")
    fnp_source: str | None = Field(default=None, description="Ability text fnp was derived from.")
    damage_reduction: int | None = Field(default=None, ge=1, le=6)
    damage_reduction_source: str | None = None
    halve_damage: bool = Field(default=False, description="Halve the Damage characteristic of attacks allocated to it.")
    halve_damage_source: str | None = Field(default=None, description="Ability text halve_damage was derived from.")
    keywords: list[str] = Field(default_factory=list, description="Keywords of the freshest source's profile.")
    unit_size: int | None = Field(default=None, ge=1, description="Models in the smallest points option.")
    min_models: int | None = Field(default=None, ge=0, description="Fewest models of this profile (unit composition).")
    max_models: int | None = Field(default=None, ge=0, description="Most models of this profile (unit composition).")
    provenance: dict[str, str] = Field(default_factory=dict, description=PROVENANCE)


class UnitWeapon(Weapon):
    """The golden profile of one weapon of a unit: the freshest source's row, whole."""

    TABLE = "unit_weapons"
    KEY: ClassVar[tuple[str, ...]] = ("unit_id", "weapon_id")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit (units.unit_id).")
    weapon_ids: list[str] = Field(default_factory=list, description="Every matched source weapon, by precedence.")
    inherited_from: str | None = Field(
        default=None, description="datasheet_id of the home datasheet a copy took this weapon from."
    )
    provenance: dict[str, str] = Field(default_factory=dict, description=PROVENANCE)


class UnitPoints(Record):
    """One golden points option of a unit."""

    TABLE = "unit_points"
    KEY = ("unit_id", "models")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit (units.unit_id).")
    models: int = Field(ge=1, description="Models in the option.")
    cost: int = Field(gt=0, description="Points.")
    datasheet_id: str = Field(description="Datasheet the chosen cost is from.")
    description: str = Field(default="", description="The source's text for the option.")
    composition: dict[str, int] | None = Field(
        default=None, description="unit_profiles.profile_name -> models of that profile, where the sources say."
    )
    provenance: dict[str, str] = Field(default_factory=dict, description=PROVENANCE)


class IdAlias(Record):
    """An id that changed or was merged into another: follow `new_id`."""

    TABLE = "id_aliases"
    KEY = ("old_id", "new_id")

    old_id: str = Field(description="The id as an earlier release or a source had it.")
    new_id: str = Field(description="The id to use now.")
    kind: str = Field(description="`unit` or `stratagem`.")
    since_version: str = Field(description="First release (version) holding the alias.")
    reason: str = Field(description="Why the id changed (docs/ids.md#aliases).")


class DamageVsReference(DamageCell):
    """A damage cell against a reference profile, with the unit the weapon belongs to."""

    TABLE = "damage_vs_reference"
    KEY: ClassVar[tuple[str, ...]] = ("unit_id", "weapon_id", "profile_id", "scenario")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit the weapon belongs to (or a copy inherits).")
    datasheet_id: str = Field(description="Datasheet of the weapon row.")
    golden: bool = Field(description="The weapon row is the unit's golden choice (unit_weapons).")

    EXTRA_COLUMNS: ClassVar[dict[str, type]] = {}
