"""Published weapon rows (`unit_weapons`) as the unit engine's `Weapon`: dice parsed, abilities typed."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from pipeline.normalise.weapon_abilities import parse_weapon_ability
from pipeline.units.model import Weapon
from schemas.dice import Dice, parse_dice

#: Flag abilities the engine reads, by their `weapon_abilities.ability` name.
_FLAGS = (
    "torrent", "lethal_hits", "devastating_wounds", "twin_linked", "blast", "lance", "heavy",
    "ignores_cover", "precision", "indirect_fire",
)  # fmt: skip
_VALUED = ("sustained_hits", "rapid_fire", "melta")


def _dice(value: object) -> Dice:
    return value if isinstance(value, Dice) else _parsed(str(value))


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> Dice:
    """One `Dice` per text (frozen, so shared): a few hundred distinct texts among the weapons' many values, and
    the plan's digest reads a shared object once."""
    return parse_dice(text)


def engine_weapon(row: Mapping[str, Any]) -> Weapon:
    """One weapon row (`weapon_id`, `kind`, `attacks`, `skill`, `strength`, `ap`, `damage`, `abilities`)."""
    flags: dict[str, bool] = dict.fromkeys(_FLAGS, False)
    valued: dict[str, Dice | None] = dict.fromkeys(_VALUED, None)
    anti: list[tuple[str, int]] = []
    for text in row.get("abilities") or ():
        ability = parse_weapon_ability(str(text))
        name = ability.ability_name
        if name in flags:
            flags[name] = True
        elif name in valued:
            valued[name] = _dice(getattr(ability, "value"))  # noqa: B009  (declared by the dice abilities)
        elif name == "anti":
            anti.append((str(getattr(ability, "keyword")), int(getattr(ability, "threshold"))))  # noqa: B009
    skill = row.get("skill")
    return Weapon(
        weapon_id=str(row["weapon_id"]),
        attacks=_dice(row["attacks"]),
        skill=None if skill is None or flags["torrent"] else int(skill),
        strength=_dice(row["strength"]),
        ap=int(row["ap"]),
        damage=_dice(row["damage"]),
        ranged=row["kind"] == "ranged",
        torrent=flags["torrent"],
        sustained_hits=valued["sustained_hits"],
        lethal_hits=flags["lethal_hits"],
        devastating_wounds=flags["devastating_wounds"],
        anti=tuple(sorted(anti)),
        twin_linked=flags["twin_linked"],
        blast=flags["blast"],
        rapid_fire=valued["rapid_fire"],
        melta=valued["melta"],
        lance=flags["lance"],
        heavy=flags["heavy"],
        ignores_cover=flags["ignores_cover"],
        precision=flags["precision"],
        indirect_fire=flags["indirect_fire"],
    )


def is_pistol(row: Mapping[str, Any]) -> bool:
    return any(parse_weapon_ability(str(t)).ability_name == "pistol" for t in row.get("abilities") or ())


def has_extra_attacks(row: Mapping[str, Any]) -> bool:
    return any(parse_weapon_ability(str(t)).ability_name == "extra_attacks" for t in row.get("abilities") or ())
