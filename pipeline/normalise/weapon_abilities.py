"""Weapon-ability text -> typed abilities (the 10th-edition core vocabulary).

Sources write `[SUSTAINED HITS 1]`, `sustained hits d3`, `Anti-Infantry 4+`,
`twin linked`; the damage engine needs `SustainedHits(D3)`, `Anti(INFANTRY, 4)`.
Anything outside the vocabulary becomes `Other` with its raw text.
"""

from __future__ import annotations

import re

from pipeline.normalise.text import collapse_ws, fold_dashes, fold_quotes
from schemas.dice import parse_dice
from schemas.weapon_abilities import (
    FLAG_TEXT,
    Anti,
    Flag,
    Melta,
    Other,
    RapidFire,
    SustainedHits,
    WeaponAbility,
)

_DICE = r"(?:\d*d[36](?:\s*\+\s*\d+)?|\d+)"
_FLAG_BY_TEXT = {text.replace("-", " "): kind for kind, text in FLAG_TEXT.items()}
_WITH_DICE: dict[str, type[SustainedHits] | type[RapidFire] | type[Melta]] = {
    "sustained hits": SustainedHits,
    "rapid fire": RapidFire,
    "melta": Melta,
}
_WITH_DICE_RE = re.compile(rf"^(sustained hits|rapid fire|melta)\s*({_DICE})$")
#: `anti-infantry 4+`, also as sources misspell it: `anti vehicle 3+` (no hyphen), `anti-fly 2` (no `+`).
_ANTI_RE = re.compile(r"^anti(?:\s*-\s*|\s+)([a-z][a-z' ]*?)\s*([2-6])\s*\+?$")

#: Regex of any core weapon ability (lower case, spaces folded): the vocabulary
#: used to split abilities glued to a weapon name.
CORE_ABILITY_PATTERN = "|".join(
    [rf"{k}\s*{_DICE}" for k in _WITH_DICE]
    + [r"anti\s*-\s*[a-z][a-z']*(?: [a-z][a-z']*)?\s*[2-6]\+"]
    + [re.escape(t).replace(r"\-", "[- ]").replace(r"\ ", " ") for t in FLAG_TEXT.values()]
)


def _clean(text: str) -> str:
    text = fold_dashes(fold_quotes(text)).strip().strip("[]").strip()
    return collapse_ws(text).lower()


def parse_weapon_ability(raw: str) -> WeaponAbility:
    """One ability text -> its typed form; unknown text -> `Other(raw)`."""
    text = _clean(raw)
    flag = _FLAG_BY_TEXT.get(text.replace("-", " "))
    if flag is not None:
        return Flag(ability=flag, raw=raw.strip())
    with_dice = _WITH_DICE_RE.match(text)
    if with_dice is not None:
        cls = _WITH_DICE[with_dice.group(1)]
        return cls(value=parse_dice(with_dice.group(2)), raw=raw.strip())
    anti = _ANTI_RE.match(text)
    if anti is not None:
        keyword = anti.group(1).strip().upper()
        return Anti(keyword=keyword, threshold=int(anti.group(2)), raw=raw.strip())
    return Other(raw=collapse_ws(raw.strip()))


def split_ability_list(text: str) -> list[str]:
    """`a, b. c; [d]` -> `['a', 'b', 'c', 'd']` (sources separate with `,` `.` `;`)."""
    parts = re.split(r"[,.;]|\]\s*\[", text)
    return [collapse_ws(p.strip().strip("[]")) for p in parts if p.strip().strip("[]").strip()]


def parse_ability_list(text: str) -> list[WeaponAbility]:
    """A whole abilities cell -> typed abilities, in order, duplicates removed."""
    seen: set[str] = set()
    result: list[WeaponAbility] = []
    for part in split_ability_list(text):
        ability = parse_weapon_ability(part)
        if ability.normalised not in seen:
            seen.add(ability.normalised)
            result.append(ability)
    return result
