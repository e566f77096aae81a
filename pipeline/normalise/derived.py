"""Defensive values derived from ability text: Feel No Pain and damage reduction.

Sources give FNP and "subtract 1 from the Damage characteristic" as abilities, not
as stats; the damage engine needs them as numbers on the profile. Only abilities
that apply unconditionally to the unit's own models are used: text with a
condition ("while leading", "against mortal wounds", "once per battle", wargear
a model may not take) would make the number wrong in most matchups. Each derived
value keeps the ability text it came from, so a reader can check it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pipeline.normalise.text import collapse_ws, fold_quotes

#: Ability kinds whose text describes the unit itself. Not `wargear` (a model may not
#: take it) nor `primarch` (Wahapedia's label for "select one of these" boxes).
UNCONDITIONAL_KINDS = frozenset({"core", "faction", "datasheet"})

_WHO = r"(?:this model has|models in this unit have|this unit has|each model in this unit has)"
_FNP_TEXT = re.compile(rf"^{_WHO} the feel no pain ([2-6])\+ ability\.?$")
_FNP_NAME = re.compile(r"^feel no pain$")
_PLUS = re.compile(r"^([2-6])\+$")
_TARGET = r"(?:this model|a model in this unit|this [a-z]+)"
_DR_TEXT = re.compile(
    rf"^each time an attack is allocated to {_TARGET}, subtract ([1-6]) "
    r"from the damage characteristic of that attack\.?$"
)


@dataclass(frozen=True)
class DerivedValue:
    """A number derived from an ability, with the text it was read from."""

    value: int
    source: str


@dataclass(frozen=True)
class AbilityText:
    """The parts of an ability the derivations read (any source can build one)."""

    name: str
    kind: str
    parameter: str | None
    text: str | None


#: The sentences read here are short; longer text is never one of them (and skipping it is fast).
MAX_SENTENCE = 200


def _key(text: str | None) -> str:
    if not text or len(text) > MAX_SENTENCE:
        return ""
    return collapse_ws(fold_quotes(text)).casefold()


@lru_cache(maxsize=4096)
def fnp_of(ability: AbilityText) -> DerivedValue | None:
    """FNP X+ from `Feel No Pain` with parameter `X+`, or from an unconditional sentence."""
    if ability.kind not in UNCONDITIONAL_KINDS:
        return None
    param = _PLUS.match(_key(ability.parameter))
    if _FNP_NAME.match(_key(ability.name)) and param is not None:
        return DerivedValue(int(param.group(1)), f"{ability.name} {param.group(0)}")
    sentence = _FNP_TEXT.match(_key(ability.text))
    if sentence is not None:
        return DerivedValue(int(sentence.group(1)), f"{ability.name}: {collapse_ws(ability.text or '')}")
    return None


@lru_cache(maxsize=4096)
def damage_reduction_of(ability: AbilityText) -> DerivedValue | None:
    """N from "Each time an attack is allocated to this model, subtract N from the Damage ..."."""
    if ability.kind not in UNCONDITIONAL_KINDS:
        return None
    sentence = _DR_TEXT.match(_key(ability.text))
    if sentence is None:
        return None
    return DerivedValue(int(sentence.group(1)), f"{ability.name}: {collapse_ws(ability.text or '')}")


def best_fnp(abilities: Iterable[AbilityText]) -> DerivedValue | None:
    """The best (lowest) FNP among the abilities; the first one wins a tie."""
    found = [v for v in map(fnp_of, abilities) if v is not None]
    return min(found, key=lambda v: v.value) if found else None


def best_damage_reduction(abilities: Iterable[AbilityText]) -> DerivedValue | None:
    """The largest damage reduction among the abilities; the first one wins a tie."""
    found = [v for v in map(damage_reduction_of, abilities) if v is not None]
    return max(found, key=lambda v: v.value) if found else None
