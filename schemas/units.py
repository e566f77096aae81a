"""Unit-level records: golden default loadouts and unit-against-unit matchups.

What each column means: docs/dataset.md (`unit_loadouts`, `unit_loadout_issues`, `unit_matchups`,
`unit_vs_reference`); rules: DAMAGE_RULES.md, "Unit level"; engine: docs/units.md.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from schemas.records import UNIT_ID_PATTERN, Record

_UNIT = UNIT_ID_PATTERN.strip("^$")
#: A golden unit, or an attached unit `<leader unit_id>+<bodyguard unit_id>` (docs/ids.md#attached-units).
MATCHUP_UNIT_PATTERN = rf"^{_UNIT}(\+{_UNIT})?$"
#: A matchup target: a unit (as above) or a reference profile at a size (`ref:meq`).
MATCHUP_TARGET_PATTERN = rf"^({_UNIT}(\+{_UNIT})?|ref:[a-z0-9_]+)$"
LoadoutMapping = Literal["source row", "matched row", "folded name"]
MatchupPhase = Literal["shooting", "fight"]


class UnitLoadout(Record):
    """Default loadout of a golden unit's points option: a group of models of one golden profile carries a
    golden weapon."""

    TABLE = "unit_loadouts"
    KEY = ("unit_id", "models", "option", "model_group", "weapon_id")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit (units.unit_id).")
    models: int = Field(ge=1, description="Models in the option (unit_points.models).")
    option: str = Field(description="The option as the loadout's source describes it (points.description).")
    model_group: str = Field(min_length=1, description="Models of the option that carry one loadout.")
    profile_name: str = Field(min_length=1, description="unit_profiles.profile_name of the group's models.")
    model_count: int = Field(ge=1, description="Models in the group.")
    weapon_id: str = Field(description="unit_weapons.weapon_id: the golden weapon (the chosen source row).")
    per_model: int = Field(ge=1, description="How many of that weapon each model of the group carries.")
    profile_group: str = Field(min_length=1, description="One weapon: rows of a group with one value are profiles.")
    allocation_order: int = Field(ge=1, description="The profile's place in the allocation order (1 first).")
    datasheet_id: str = Field(description="The datasheet whose default loadout this is (datasheet_loadouts).")
    fallback: bool = Field(description="Not the freshest datasheet's loadout: an older source's, mapped.")
    mapped_by: LoadoutMapping = Field(
        description="How the weapon was tied to the golden weapon: the golden row itself, one of its matched rows, "
        "or the folded name."
    )


class UnitLoadoutIssue(Record):
    """A golden unit's points option whose default loadout could not be resolved, and why."""

    TABLE = "unit_loadout_issues"
    KEY = ("unit_id", "models", "reason")

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit (units.unit_id).")
    models: int = Field(ge=0, description="The option's models (0: the unit has no points option).")
    reason: str = Field(min_length=1, description="Reason class (docs/dataset.md#unit_loadout_issues).")
    detail: str = Field(description="What was tried: datasheets and what failed in each.")


class _MatchupColumns(Record):
    attacker_unit_id: str = Field(pattern=MATCHUP_UNIT_PATTERN, description="Attacking unit (or attached unit).")
    attacker_models: int = Field(ge=1, description="Models in the attacking option (an attached Leader's included).")
    attacker_faction: str = Field(description="slug of the attacker's faction (the partition of unit_matchups).")
    scenario: str = Field(description="Scenario (pipeline.damage.scenarios).")
    phase: MatchupPhase = Field(description="`shooting`: ranged weapons; `fight`: melee weapons.")
    models_slain: float = Field(ge=0, description="Expected models slain.")
    p_any: float = Field(ge=0, le=1, description="P(at least one model slain).")
    p_wipe: float = Field(ge=0, le=1, description="P(every model slain).")
    slain_p10: int = Field(ge=0, description="10th percentile of models slain (lower quantile).")
    slain_p50: int = Field(ge=0, description="Median models slain (lower quantile).")
    slain_p90: int = Field(ge=0, description="90th percentile of models slain (lower quantile).")
    wounds_lost: float = Field(ge=0, description="Expected wounds lost by the target (never above its total).")
    target_wounds: int = Field(ge=1, description="The target option's total wounds.")


class UnitMatchup(_MatchupColumns):
    """One (attacker unit option, target unit option, scenario, phase): the exact distribution's summary."""

    TABLE = "unit_matchups"
    KEY: ClassVar[tuple[str, ...]] = (
        "attacker_unit_id", "attacker_models", "target_unit_id", "target_models", "scenario", "phase",
    )  # fmt: skip

    target_unit_id: str = Field(pattern=MATCHUP_UNIT_PATTERN, description="Target unit (or attached unit).")
    target_models: int = Field(ge=1, description="Models in the target option.")
    points_destroyed: float | None = Field(
        default=None, ge=0, description="Expected points slain: per model group, expected slain × cost per model."
    )
    points_destroyed_per_100: float | None = Field(
        default=None, ge=0, description="points_destroyed per 100 points of the attacking option."
    )


class UnitVsReference(_MatchupColumns):
    """One unit option against a reference unit (a reference profile at 1, 5, 10 or 20 models)."""

    TABLE = "unit_vs_reference"
    KEY: ClassVar[tuple[str, ...]] = (
        "attacker_unit_id", "attacker_models", "target_unit_id", "target_models", "scenario", "phase",
    )  # fmt: skip

    target_unit_id: str = Field(pattern=r"^ref:[a-z0-9_]+$", description="reference_profiles.profile_id.")
    target_models: int = Field(ge=1, description="Models in the reference unit: 1, 5, 10 or 20.")
    slain_dist: list[float] = Field(description="P(k models slain) for k = 0 .. target_models.")
