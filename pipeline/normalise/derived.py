"""Defensive values derived from ability text: Feel No Pain, damage reduction, halve damage, melee invulns.

Sources give FNP, "subtract 1 from the Damage characteristic" and "halve the Damage
characteristic" as abilities, not as stats; the damage engine needs them on the
profile. Only abilities that apply unconditionally to the unit's own models are
used: text with a condition ("while leading", "against mortal wounds", "once per
battle", wargear a model may not take) would make the value wrong in most
matchups. Each derived value keeps the ability text it came from, so a reader can
check it. FNP and damage reduction are read by the Wahapedia parser;
`with_derived_defences` derives halve damage and a better invulnerable save in
melee for every source's model profiles (docs/damage.md).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pipeline.dataset import Dataset
from pipeline.normalise.text import collapse_ws, fold_quotes
from schemas.records import Ability, ModelProfile

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
_HALVE_TEXT = re.compile(
    rf"^each time an attack is allocated to {_TARGET}, halve the damage characteristic of that attack\.?$"
)
#: "This invulnerable save is improved to 4+ against melee attacks." / "4+ against melee attacks only".
_MELEE_INVULN = (
    re.compile(r"\bimproved to (?:an? )?([2-6])\+ against melee attacks\.?$"),
    re.compile(r"^([2-6])\+ against melee attacks only\.?$"),
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


@lru_cache(maxsize=4096)
def halve_damage_of(ability: AbilityText) -> str | None:
    """The source text when the ability is "Each time an attack is allocated to this model, halve the Damage ..."."""
    if ability.kind not in UNCONDITIONAL_KINDS or _HALVE_TEXT.match(_key(ability.text)) is None:
        return None
    return f"{ability.name}: {collapse_ws(ability.text or '')}"


def melee_invuln_of(note: str | None, invuln: int | None) -> int | None:
    """N from an invulnerable-save note that improves the save to N+ against melee attacks (N better than it)."""
    text = _key(note)
    for pattern in _MELEE_INVULN:
        found = pattern.search(text)
        if found is not None and invuln is not None and int(found.group(1)) < invuln:
            return int(found.group(1))
    return None


def _applies_to(ability: Ability, profile: ModelProfile) -> bool:
    """An ability limited to one model (`model`) applies only to the profile of that name."""
    return ability.model is None or _key(ability.model) == _key(profile.name)


def derive_defences(profile: ModelProfile, abilities: Sequence[Ability]) -> ModelProfile:
    """The profile with `halve_damage` and `invuln_melee` derived from its datasheet's text (set values kept)."""
    updates: dict[str, object] = {}
    if not profile.halve_damage:
        texts = (AbilityText(a.name, a.kind, a.parameter, a.text) for a in abilities if _applies_to(a, profile))
        source = next((s for s in map(halve_damage_of, texts) if s is not None), None)
        if source is not None:
            updates.update(halve_damage=True, halve_damage_source=source)
    if profile.invuln_melee is None:
        melee = melee_invuln_of(profile.invuln_note, profile.invuln)
        if melee is not None:
            updates["invuln_melee"] = melee
    return profile.model_copy(update=updates) if updates else profile


def with_derived_defences(dataset: Dataset) -> Dataset:
    """A new dataset whose model profiles (any source) carry the values derived from their datasheet's text."""
    by_datasheet: dict[str, list[Ability]] = defaultdict(list)
    for ability in dataset.records(Ability):
        by_datasheet[ability.datasheet_id].append(ability)
    profiles = dataset.records(ModelProfile)
    derived = [derive_defences(p, by_datasheet.get(p.datasheet_id, ())) for p in profiles]
    if all(new is old for new, old in zip(derived, profiles, strict=True)):
        return dataset
    return dataset.replacing({ModelProfile: derived})
