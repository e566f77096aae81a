"""Items of a loadout statement -> the datasheet's weapons: `2 rokkit pistols` is two of one weapon,
`plasma pistol` is every profile of `Plasma pistol – standard / – supercharge` (one weapon, one choice per
use); an item that names no weapon but a wargear ability is wargear (docs/sources.md#default-loadouts)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.loadouts.names import PROFILE_CHANGING, best_match, key
from pipeline.loadouts.rows import CarriedWeapon
from pipeline.normalise.text import fold_dashes, fold_quotes

_COUNT = re.compile(r"^(?P<n>\d+|one|two|three|four|five|six|a|an)\s+(?:x\s+)?(?P<rest>\S.*)$", re.IGNORECASE)
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: A weapon profile's mode after a spaced dash: `Plasma pistol – supercharge`.
_MODE = re.compile(r"\s+-\s+")
_SPLIT = re.compile(r",\s*|\s+and\s+|\s*&\s*")


def weapon_base(name: str) -> str:
    """The weapon a profile belongs to: `Plasma pistol – standard` -> `Plasma pistol`; `➤ ` marks dropped."""
    text = fold_dashes(fold_quotes(name)).strip().lstrip("➤>").strip()
    return _MODE.split(text, maxsplit=1)[0].strip() or text


@dataclass(frozen=True)
class ProfileRef:
    weapon_id: str
    name: str
    datasheet_id: str


@dataclass(frozen=True)
class Resolved:
    """An item read: the weapons it carries (empty for wargear) or, if unreadable, nothing and `unknown`."""

    weapons: tuple[CarriedWeapon, ...] = ()
    wargear: bool = False

    @property
    def unknown(self) -> bool:
        return not self.weapons and not self.wargear


class WeaponIndex:
    """The weapons of a datasheet by the weapon they belong to (all profiles of one base name); a copy's
    home's weapons (`fallback`) fill in the weapons it lacks."""

    def __init__(
        self, weapons: Sequence[ProfileRef], wargear: Sequence[str] = (), fallback: Sequence[ProfileRef] = ()
    ) -> None:
        self._bases: dict[str, list[ProfileRef]] = {}
        self._display: dict[str, str] = {}
        for weapon in weapons:
            base = weapon_base(weapon.name)
            self._bases.setdefault(key(base), []).append(weapon)
            self._display.setdefault(key(base), base)
        own = set(self._bases)
        for weapon in fallback:
            base = weapon_base(weapon.name)
            if key(base) not in own:
                self._bases.setdefault(key(base), []).append(weapon)
                self._display.setdefault(key(base), base)
        self._names = list(self._bases)
        self._wargear = list(dict.fromkeys(w for w in wargear if w.strip()))

    def every_weapon(self) -> tuple[CarriedWeapon, ...]:
        """One of each weapon (a datasheet whose only model has no options carries them all)."""
        return tuple(
            CarriedWeapon(w.weapon_id, 1, self._display[k], w.datasheet_id) for k in self._names for w in self._bases[k]
        )

    def resolve(self, item: str) -> Resolved:
        """The weapons an item names (each with its count): the weapon of that very name; else a list
        (`X and Y`, `X, Y`) whose every piece is a weapon; else the closest weapon; else wargear."""
        found = self._one(item, exact=True)
        pieces = [p for p in _SPLIT.split(item) if p.strip()]
        if found is None and len(pieces) > 1:
            parts = [self._one(p) for p in pieces]
            if all(p is not None for p in parts):
                return Resolved(tuple(w for p in parts if p is not None for w in p))
        found = found or self._one(item)
        if found is not None:
            return Resolved(found)
        if self._wargear and best_match(item, self._wargear, overlap=False) is not None:
            return Resolved(wargear=True)
        return Resolved()

    def _one(self, item: str, exact: bool = False) -> tuple[CarriedWeapon, ...] | None:
        count, name = _counted(item)
        names = [self._display[k] for k in self._names]
        if exact:
            hits = [i for i, k in enumerate(self._names) if k == key(name)]
            index = hits[0] if hits else None
        else:
            index = best_match(name, names, overlap=False, spelling=True, guard=PROFILE_CHANGING)
        if index is None:
            return None
        base_key = self._names[index]
        group = self._display[base_key]
        return tuple(CarriedWeapon(w.weapon_id, count, group, w.datasheet_id) for w in self._bases[base_key])


def _counted(item: str) -> tuple[int, str]:
    """`2 rokkit pistols` -> (2, `rokkit pistols`); no count -> 1."""
    match = _COUNT.match(item.strip())
    if match is None:
        return 1, item.strip()
    number = match.group("n").casefold()
    return (int(number) if number.isdigit() else _WORD_NUMBERS[number]), match.group("rest")


def weapon_key(name: str) -> str:
    """Key of the weapon a profile belongs to (its profiles share it)."""
    return key(weapon_base(name))
