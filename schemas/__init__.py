"""Pydantic v2 record models: the contract every pipeline stage speaks.

Names are imported on first use (PEP 562): `schemas.dice` alone must not build every record model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas.lazy import lazy_getattr

if TYPE_CHECKING:
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
    "DICE_PATTERN",
    "Ability",
    "Anti",
    "CompositionLine",
    "DamageCell",
    "Datasheet",
    "DatasheetStratagem",
    "DefensiveProfile",
    "DetachmentAbility",
    "Dice",
    "DiceField",
    "Enhancement",
    "Flag",
    "Keyword",
    "LeaderLink",
    "Melta",
    "ModelProfile",
    "Other",
    "Points",
    "QuarantineRow",
    "RapidFire",
    "Record",
    "ReferenceProfile",
    "Rule",
    "RuleBlock",
    "RuleOccurrence",
    "Source",
    "SourceConflict",
    "Stratagem",
    "SustainedHits",
    "WargearOption",
    "Weapon",
    "WeaponAbility",
    "WeaponAbilityRow",
    "parse_dice",
]


_MODULES = ("dice", "records", "weapon_abilities")


__getattr__ = lazy_getattr(__name__, __all__, _MODULES)
