"""The record contract: one Pydantic model per published table.

Every source parser yields these records, every later stage reads them; the
published table and column names (docs/dataset.md) are the
models' `TABLE` and field names. Validation here is the row-level gate: a row that
does not fit (T = 0, AP +1, a skill of 7) fails here and goes to quarantine.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.dice import Dice, DiceField
from schemas.weapon_abilities import WeaponAbility

SourceFormat = Literal["page_export", "wahapedia_csv", "bsdata", "reference"]
#: `unit:<faction>:<name>[-legends|-crucible]`, slugs only (docs/ids.md#unit-ids).
UNIT_ID_PATTERN = r"^unit:[a-z0-9-]+:[a-z0-9-]+$"
WeaponKind = Literal["ranged", "melee"]
InvulnCondition = Literal["ranged", "melee"]
UNLOCKED_BY = "The option(s) whose selection shows this (hidden until chosen); NULL: always shown."
#: Highest Strength a weapon profile may have (Titan weapons reach 30+).
MAX_STRENGTH = 40


class Record(BaseModel):
    """Base of every published record: knows its table and where it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    TABLE: ClassVar[str] = ""
    #: Columns that identify a row (the primary key of its table).
    KEY: ClassVar[tuple[str, ...]] = ()
    #: Columns `row()` adds beyond the fields (name -> Python type), from `extra_columns()`.
    EXTRA_COLUMNS: ClassVar[dict[str, type]] = {}

    source_id: str | None = Field(default=None, description="Source file the row came from.")
    line: int | None = Field(default=None, ge=1, description="1-based line (or row) in the source.")

    def row(self) -> dict[str, Any]:
        """The row as published (dice as text, typed abilities left out)."""
        return {**self.model_dump(mode="json"), **self.extra_columns()}

    def extra_columns(self) -> dict[str, Any]:
        """The values of `EXTRA_COLUMNS` (computed from the fields; none here)."""
        return {}


class Source(Record):
    TABLE = "sources"
    KEY = ("source_id",)

    source_id: str
    format: SourceFormat
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    rows_in: int = Field(ge=0)
    rows_curated: int = Field(ge=0)
    rows_quarantined: int = Field(ge=0)
    source_date: str | None = Field(default=None, description="ISO date the source's content is from.")


class Datasheet(Record):
    TABLE = "datasheets"
    KEY = ("datasheet_id",)

    datasheet_id: str
    source_id: str
    faction: str = Field(min_length=1)
    name: str = Field(min_length=1)
    role: str | None = None
    unit_id: str | None = Field(default=None, description="Same unit across sources (reconcile).")
    legend: str | None = None
    loadout: str | None = None
    transport: str | None = None
    damaged_w: str | None = None
    damaged_description: str | None = None
    leader_text: str | None = None
    source_book: str | None = Field(default=None, description="Publication the datasheet is from.")
    source_date: str | None = Field(default=None, description="ISO date of that publication's errata.")
    copy_of: str | None = Field(
        default=None, description="datasheet_id of the home datasheet this one republishes for its faction (reconcile)."
    )


class DefensiveProfile(Record):
    """The statline a target presents; shared by model and reference profiles."""

    profile_id: str
    name: str = Field(min_length=1)
    movement: int | None = Field(default=None, ge=0, le=100, description="Inches.")
    toughness: int | None = Field(default=None, ge=1, le=20)
    save: int | None = Field(default=None, ge=2, le=7, description="3 means 3+.")
    invuln: int | None = Field(default=None, ge=2, le=6)
    invuln_condition: InvulnCondition | None = None
    wounds: int | None = Field(default=None, ge=1, le=100)
    leadership: int | None = Field(default=None, ge=2, le=12, description="6 means 6+.")
    oc: int | None = Field(default=None, ge=0, le=50, description="A Warlord Titan has OC 30.")
    fnp: int | None = Field(default=None, ge=2, le=6, description="Feel No Pain X+.")
    fnp_source: str | None = Field(default=None, description="Ability text fnp was derived from.")
    damage_reduction: int | None = Field(default=None, ge=1, le=6)
    damage_reduction_source: str | None = None
    keywords: list[str] = Field(default_factory=list)
    unit_size: int | None = Field(default=None, ge=1, description="Models in the smallest points option.")

    @field_validator("keywords")
    @classmethod
    def _upper_keywords(cls, value: list[str]) -> list[str]:
        return [k.upper() for k in value]

    @property
    def has_statline(self) -> bool:
        return None not in (self.toughness, self.save, self.wounds)


class ModelProfile(DefensiveProfile):
    TABLE = "model_profiles"
    KEY = ("profile_id",)

    datasheet_id: str
    base_size: str | None = None
    invuln_melee: int | None = Field(
        default=None, ge=2, le=6, description="Invulnerable save against melee attacks where it differs from `invuln`."
    )
    invuln_note: str | None = Field(default=None, description="Footnote on the invulnerable save.")
    stats_from: str | None = Field(
        default=None, description="Where NULL stats were filled from (reconcile): sources and fields."
    )
    halve_damage: bool = Field(
        default=False, description="Attacks allocated to the model have their Damage halved (rounding up)."
    )
    halve_damage_source: str | None = Field(default=None, description="Ability text halve_damage was derived from.")


class ReferenceProfile(DefensiveProfile):
    TABLE = "reference_profiles"
    KEY = ("profile_id",)

    description: str = ""


class Weapon(Record):
    TABLE = "weapons"
    KEY: ClassVar[tuple[str, ...]] = ("weapon_id",)

    weapon_id: str
    datasheet_id: str
    name: str = Field(min_length=1, description="Without abilities.")
    kind: WeaponKind
    range_inches: int | None = Field(default=None, ge=0, le=1000, description='Titans reach 480".')
    attacks: DiceField
    skill: int | None = Field(default=None, ge=2, le=6, description="NULL for torrent.")
    strength: DiceField = Field(description="Dice text (`8`, `2D6`); each attack rolls its own.")
    ap: int = Field(ge=-6, le=0)
    damage: DiceField
    abilities: list[str] = Field(default_factory=list, description="Normalised, lower case.")
    unlocked_by: str | None = Field(default=None, description=UNLOCKED_BY)
    typed_abilities: list[WeaponAbility] = Field(default_factory=list, exclude=True)

    EXTRA_COLUMNS: ClassVar[dict[str, type]] = {"attacks_mean": float, "strength_mean": float, "damage_mean": float}

    @field_validator("strength")
    @classmethod
    def _strength_range(cls, value: Dice) -> Dice:
        if value.min < 1 or value.max > MAX_STRENGTH:
            raise ValueError(f"strength {value.text} outside 1..{MAX_STRENGTH}")
        return value

    @field_validator("ap", mode="before")
    @classmethod
    def _minus_zero(cls, value: Any) -> Any:
        """`-0` is 0; sources write it both ways."""
        return 0 if str(value).strip() in {"-0", "+0"} else value

    def extra_columns(self) -> dict[str, Any]:
        return {"attacks_mean": self.attacks.mean, "strength_mean": self.strength.mean, "damage_mean": self.damage.mean}


class WeaponAbilityRow(Record):
    TABLE = "weapon_abilities"
    KEY = ("weapon_id", "ability", "raw")

    weapon_id: str
    ability: str
    value: str | None = None
    keyword: str | None = None
    raw: str


class Ability(Record):
    TABLE = "abilities"
    KEY = ("datasheet_id", "name", "kind", "model")

    datasheet_id: str
    name: str = Field(min_length=1)
    kind: str = Field(description="core / faction / datasheet / wargear / damaged / ...")
    parameter: str | None = None
    text: str | None = None
    model: str | None = Field(default=None, description="Model the ability is limited to, if any.")
    text_html: str | None = Field(default=None, description="Sanitised minimal HTML of `text`.")
    unlocked_by: str | None = Field(default=None, description=UNLOCKED_BY)


class Keyword(Record):
    TABLE = "keywords"
    KEY = ("datasheet_id", "keyword", "model")

    datasheet_id: str
    keyword: str = Field(min_length=1)
    is_faction: bool = False
    model: str | None = None

    @field_validator("keyword")
    @classmethod
    def _upper(cls, value: str) -> str:
        return " ".join(value.split()).upper()


class Points(Record):
    TABLE = "points"
    KEY = ("datasheet_id", "models", "description")

    datasheet_id: str
    models: int = Field(ge=1)
    cost: int = Field(gt=0)
    description: str = ""


class Stratagem(Record):
    TABLE = "stratagems"
    KEY = ("stratagem_id",)

    stratagem_id: str = Field(description="`strat:<detachment>:<name>`, one per distinct stratagem (docs/ids.md).")
    name: str = Field(min_length=1)
    cp: int | None = Field(default=None, ge=0, le=5)
    detachment: str | None = Field(default=None, description="Detachment; `Core` for core stratagems.")
    type: str | None = Field(default=None, description="`Battle Tactic`, `Strategic Ploy`, `Epic Deed`, `Wargear`.")
    type_source: str | None = Field(default=None, description="The type as the chosen source writes it.")
    sources: list[str] = Field(default_factory=list, description="source_ids holding the stratagem.")
    provenance: dict[str, str] = Field(default_factory=dict, description="field -> 'source_id (why that source)'.")
    when: str | None = None
    target: str | None = None
    effect: str | None = None
    restrictions: str | None = None
    faction: str | None = None
    source_tag: str | None = Field(default=None, description="Short source tag, e.g. `C`, `BA`.")
    legend: str | None = None


class DatasheetStratagem(Record):
    """A stratagem listed on (usable by) a datasheet."""

    TABLE = "datasheet_stratagems"
    KEY = ("datasheet_id", "stratagem_id")

    datasheet_id: str
    stratagem_id: str


class RuleBlock(Record):
    """One appearance of a rule text in an input, before dedupe."""

    TABLE = "rule_blocks"

    title: str = Field(min_length=1)
    body: str
    kind: str = "rule"
    summary: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)


class Rule(Record):
    TABLE = "rules"
    KEY = ("rule_id",)

    rule_id: str
    title: str
    body: str
    content_hash: str
    variant_of: str | None = None
    kind: str = "rule"
    occurrences: int = Field(default=0, ge=0)
    summary: list[str] = Field(default_factory=list, description="Bullet summary lines of the rule.")
    examples: list[str] = Field(default_factory=list, description="`Example:` texts of the rule.")


class RuleOccurrence(Record):
    TABLE = "rule_occurrences"
    KEY = ("rule_id", "source_id", "line")

    rule_id: str
    source_id: str
    line: int


class QuarantineRow(Record):
    TABLE = "quarantine"
    KEY = ("source_id", "line", "stage", "reason")

    source_id: str
    stage: str
    reason: str
    raw: str
    table: str | None = Field(default=None, description="Source table or section the row came from.")


class DatasheetEnhancement(Record):
    """An enhancement a datasheet can take."""

    TABLE = "datasheet_enhancements"
    KEY = ("datasheet_id", "enhancement_id")

    datasheet_id: str
    enhancement_id: str


class DatasheetDetachmentAbility(Record):
    """A detachment ability that applies to a datasheet."""

    TABLE = "datasheet_detachment_abilities"
    KEY = ("datasheet_id", "detachment_ability_id")

    datasheet_id: str
    detachment_ability_id: str


class LeaderLink(Record):
    TABLE = "leaders"
    KEY = ("leader_id", "attached_id")

    leader_id: str = Field(description="datasheet_id of the leader.")
    attached_id: str = Field(description="datasheet_id of the unit it can lead.")


class WargearOption(Record):
    TABLE = "wargear_options"
    KEY = ("datasheet_id", "position")

    datasheet_id: str
    position: int = Field(ge=1)
    text: str
    text_html: str | None = Field(default=None, description="Sanitised minimal HTML of `text`.")


class CompositionLine(Record):
    TABLE = "unit_composition"
    KEY = ("datasheet_id", "position")

    datasheet_id: str
    position: int = Field(ge=1)
    text: str


class Enhancement(Record):
    TABLE = "enhancements"
    KEY = ("enhancement_id",)

    enhancement_id: str
    faction: str | None = None
    name: str
    cost: int | None = Field(default=None, ge=0)
    detachment: str | None = None
    legend: str | None = None
    text: str | None = None
    text_html: str | None = Field(default=None, description="Sanitised minimal HTML of `text`.")


class DetachmentAbility(Record):
    TABLE = "detachment_abilities"
    KEY = ("detachment_ability_id",)

    detachment_ability_id: str
    faction: str | None = None
    name: str
    detachment: str | None = None
    legend: str | None = None
    text: str | None = None
    text_html: str | None = Field(default=None, description="Sanitised minimal HTML of `text`.")


class SourceConflict(Record):
    TABLE = "source_conflicts"
    KEY = ("unit_id", "field")

    unit_id: str
    field: str
    values: dict[str, str | None] = Field(description="Value per source_id.")
    chosen: str | None
    chosen_source: str | None = None
    reason: str


class Unit(Record):
    """The golden record of one unit: each field from the freshest source that has it."""

    TABLE = "units"
    KEY = ("unit_id",)

    unit_id: str = Field(pattern=UNIT_ID_PATTERN, description="The unit across sources (docs/ids.md#unit-ids).")
    faction: str = Field(description="Display name of the faction the unit is filed under.")
    name: str = Field(description="Normalised display name (docs/reconcile.md#name-folding-and-display-names).")
    legend: bool = Field(default=False, description="A Legends (or Crucible) datasheet, not a current one.")
    legend_tag: str | None = Field(default=None, description="`Legends` or `Crucible` when `legend`.")
    role: str | None = Field(default=None, description="Battlefield role, one vocabulary (docs/reconcile.md#roles).")
    role_source: str | None = Field(default=None, description="The role as the source that gave `role` labels it.")
    home_unit_id: str | None = Field(
        default=None, description="For a faction's copy of another faction's datasheet: the unit of the home datasheet."
    )
    datasheet_ids: list[str] = Field(default_factory=list, description="Datasheets of the unit, by precedence.")
    sources: list[str] = Field(default_factory=list, description="source_ids of those datasheets.")
    movement: int | None = Field(default=None, description="Main model's Move, inches.")
    toughness: int | None = Field(default=None, description="Main model's Toughness.")
    save: int | None = Field(default=None, description="Main model's Save (3 means 3+).")
    invuln: int | None = Field(default=None, description="Main model's invulnerable save.")
    invuln_condition: InvulnCondition | None = Field(
        default=None, description="`ranged`/`melee` when it applies to one."
    )
    wounds: int | None = Field(default=None, description="Main model's Wounds.")
    leadership: int | None = Field(default=None, description="Main model's Leadership (6 means 6+).")
    oc: int | None = Field(default=None, description="Main model's Objective Control.")
    points: int | None = Field(default=None, description="Cost of the cheapest points option.")
    points_models: int | None = Field(default=None, description="Models in that option.")
    provenance: dict[str, str] = Field(default_factory=dict, description="field -> 'source_id (why that source)'.")


class SourceCheck(Record):
    """A catalogue's self-check: elements of one kind in its XML against what was published from them."""

    TABLE = "source_checks"
    KEY = ("source_id", "check_name")

    source_id: str
    check_name: str = Field(description="statlines / weapons / invulns / points (docs/sources.md).")
    expected: int = Field(ge=0, description="Elements of that kind in the file's XML.")
    published: int = Field(ge=0, description="Of those, the ones a published record came from.")
    explained: int = Field(ge=0, description="Not published, for a known reason (hidden, force-only, ...).")
    unexplained: int = Field(ge=0, description="Not published and not explained: a loss to look at.")
    reasons: dict[str, int] = Field(
        default_factory=dict, description="`explained: <why>` / `unexplained: <why>` -> count."
    )


class DamageCell(Record):
    """One (weapon, target profile, scenario) cell of the expected-damage matrix."""

    TABLE = "damage_matrix"
    KEY: ClassVar[tuple[str, ...]] = ("weapon_id", "profile_id", "scenario")

    weapon_id: str
    profile_id: str
    scenario: str
    attacks: float
    hits: float
    wounds: float
    mortal_wounds: float
    unsaved: float
    damage: float
    damage_capped: float
    self_mortal_wounds: float
    damage_per_100_points: float | None = Field(
        default=None,
        description="damage_capped x 100 / (cheapest option cost / copies of the weapon in its default loadout).",
    )
    models_slain: float = Field(
        default=0.0, description="Expected models slain by one model's attacks against a unit of unit_size models."
    )
    wounds_lost: float = Field(default=0.0, description="Expected wounds that unit loses (at most unit_size x W).")


LoadoutMethod = Literal["text", "every weapon", "bsdata defaults"]
IssueSeverity = Literal["unresolved", "note"]


class DatasheetLoadout(Record):
    """Default loadout: in one points option, a group of models of one profile carries a weapon (docs/dataset.md)."""

    TABLE = "datasheet_loadouts"
    KEY = ("datasheet_id", "option", "model_group", "weapon_id")

    datasheet_id: str
    models: int = Field(ge=1, description="Models in the points option (points.models).")
    option: str = Field(description="The option's points.description: two options may have the same size.")
    model_group: str = Field(min_length=1, description="Models of the option that carry one loadout.")
    profile_name: str = Field(min_length=1, description="model_profiles.name (same datasheet) of the group's models.")
    model_count: int = Field(ge=1, description="Models in the group.")
    weapon_id: str = Field(description="weapons.weapon_id of weapon_datasheet_id.")
    weapon_datasheet_id: str = Field(description="The datasheet the weapon row belongs to: this one or a copy's home.")
    per_model: int = Field(ge=1, description="How many of that weapon each model of the group carries.")
    profile_group: str = Field(
        min_length=1, description="One weapon: its rows in a group are profiles of it (standard / supercharge)."
    )
    allocation_order: int = Field(ge=1, description="The profile's place in the allocation order (1 first).")
    method: LoadoutMethod = Field(description="How the loadout was read (docs/sources.md#default-loadouts).")


class LoadoutIssue(Record):
    """Why a datasheet's default loadout is unresolved (or what was set aside while reading it)."""

    TABLE = "loadout_issues"
    KEY = ("datasheet_id", "reason", "detail")

    datasheet_id: str
    reason: str = Field(min_length=1, description="Reason class (docs/dataset.md#loadout_issues).")
    detail: str = Field(description="What exactly: the subject, item, option or entry concerned.")
    severity: IssueSeverity = Field(description="`unresolved`: no loadout published; `note`: published anyway.")
    raw: str | None = Field(default=None, description="The text (or XML excerpt) the loadout was read from.")
