"""Pydantic v2 record models: the contract every pipeline stage speaks."""

from schemas.dice import DICE_PATTERN, Dice, DiceField, parse_dice
from schemas.records import (
    Ability,
    CompositionLine,
    DamageCell,
    Datasheet,
    DatasheetStratagem,
    DefensiveProfile,
    DetachmentAbility,
    Enhancement,
    Keyword,
    LeaderLink,
    ModelProfile,
    Points,
    QuarantineRow,
    Record,
    ReferenceProfile,
    Rule,
    RuleBlock,
    RuleOccurrence,
    Source,
    SourceConflict,
    Stratagem,
    WargearOption,
    Weapon,
    WeaponAbilityRow,
)
from schemas.weapon_abilities import Anti, Flag, Melta, Other, RapidFire, SustainedHits, WeaponAbility

__all__ = [
    "DICE_PATTERN", "Ability", "Anti", "CompositionLine", "DamageCell", "Datasheet",
    "DatasheetStratagem", "DefensiveProfile", "DetachmentAbility", "Dice", "DiceField", "Enhancement",
    "Flag", "Keyword", "LeaderLink", "Melta", "ModelProfile", "Other", "Points", "QuarantineRow",
    "RapidFire", "Record", "ReferenceProfile", "Rule", "RuleBlock", "RuleOccurrence", "Source",
    "SourceConflict", "Stratagem", "SustainedHits", "WargearOption", "Weapon", "WeaponAbility",
    "WeaponAbilityRow", "parse_dice",
]
