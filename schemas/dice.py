"""Dice expressions (`D6+1`, `2D3`, `4`) as a small value type.

Every source writes attack and damage characteristics as text; the damage engine
needs their mean, the quality gates their bounds. Parsing once, here, keeps the
two in agreement.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer

_DICE_RE = re.compile(r"^(?:(?P<n>\d*)D(?P<sides>3|6))?(?:\s*\+\s*)?(?P<plus>\d+)?$")

#: Anchored regex of a valid dice text, shared with the quality suites.
DICE_PATTERN = r"^([1-9][0-9]*|([1-9][0-9]*)?D(3|6)(\+[1-9][0-9]*)?)$"


class Dice(BaseModel):
    """A dice expression `nDs+k`; `n`=0 means a fixed value `k`."""

    model_config = ConfigDict(frozen=True)

    n: int = 0
    sides: int = 0
    plus: int = 0

    @property
    def text(self) -> str:
        """Canonical text: `D6+1`, `2D3`, `4`."""
        if self.n == 0:
            return str(self.plus)
        dice = f"{'' if self.n == 1 else self.n}D{self.sides}"
        return f"{dice}+{self.plus}" if self.plus else dice

    @property
    def mean(self) -> float:
        return self.n * (self.sides + 1) / 2 + self.plus

    @property
    def min(self) -> int:
        return self.n + self.plus

    @property
    def max(self) -> int:
        return self.n * self.sides + self.plus

    def __str__(self) -> str:
        return self.text


def parse_dice(text: str) -> Dice:
    """Parse `D6+1`, `d3`, `2D6`, `3`, ` 4 ` into a Dice; ValueError if it is not one."""
    cleaned = re.sub(r"\s+", "", str(text)).upper()
    match = _DICE_RE.match(cleaned)
    if not cleaned or match is None or (match["sides"] is None and match["plus"] is None):
        raise ValueError(f"not a dice expression: {text!r}")
    if match["sides"] is None:
        if match["n"]:
            raise ValueError(f"not a dice expression: {text!r}")
        return Dice(plus=int(match["plus"]))
    n = int(match["n"]) if match["n"] else 1
    plus = int(match["plus"]) if match["plus"] else 0
    if n == 0:
        raise ValueError(f"zero dice in {text!r}")
    return Dice(n=n, sides=int(match["sides"]), plus=plus)


def _coerce_dice(value: Any) -> Dice:
    if isinstance(value, Dice):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"negative dice value {value}")
        return Dice(plus=value)
    if isinstance(value, dict):
        return Dice(**value)
    return parse_dice(str(value))


#: A field holding dice: accepts text or Dice, serialises as canonical text.
DiceField = Annotated[
    Dice,
    BeforeValidator(_coerce_dice),
    PlainSerializer(lambda d: d.text, return_type=str),
]
