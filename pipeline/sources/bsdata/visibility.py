"""Which elements a datasheet shows: static `hidden`, options that un-hide (`unlocked_by`), force-only
content such as Crusade's (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pipeline.sources.bsdata.index import Element, Scope, children, is_hidden
from pipeline.sources.bsdata.trampoline import Step, run

#: Condition scopes that look outside the unit (the army, its forces, its catalogue).
ARMY_SCOPES = frozenset({"roster", "force", "primary-catalogue", "primary-category"})
#: Condition types meaning "fewer than one" when compared with the given value.
_NONE_OF = {("lessThan", 1.0), ("equalTo", 0.0), ("atMost", 0.0)}

#: Force ids a condition tree holds for whenever that force is absent; ALWAYS: it holds whatever happens.
ALWAYS = frozenset({"*"})


@dataclass(frozen=True)
class Visibility:
    """Shown or not; `unlocked_by` names the options that un-hide it; `reason` says why it is not shown."""

    shown: bool
    unlocked_by: str | None = None
    reason: str | None = None


SHOWN = Visibility(True)


def _value(condition: Element) -> float | None:
    try:
        return float(condition.get("value") or "")
    except ValueError:
        return None


def _has_modifiers(element: Element) -> bool:
    return next(element.iterchildren("{*}modifiers", "{*}modifierGroups"), None) is not None  # not `find`: ≈ 4x slower


def _modifier_trees(element: Element) -> Iterator[tuple[Element, list[Element]]]:
    """(modifier, the modifierGroups around it): a group's conditions apply to its modifiers too."""
    for modifier in children(element, "modifiers", "modifier"):
        yield modifier, []
    for group in children(element, "modifierGroups", "modifierGroup"):
        for modifier in children(group, "modifiers", "modifier"):
            yield modifier, [group]


def _hide_modifiers(element: Element | None, value: str) -> Iterator[tuple[Element, list[Element]]]:
    if element is None:
        return
    for modifier, groups in _modifier_trees(element):
        is_set = modifier.get("field") == "hidden" and modifier.get("type") == "set"
        if is_set and (modifier.get("value") or "").strip().lower() == value:
            yield modifier, groups


def _missing_force(condition: Element) -> frozenset[str]:
    """{F} if the condition reads "the roster holds no force F", else nothing."""
    kind = (condition.get("type"), _value(condition))
    if condition.get("field") == "forces" and kind in _NONE_OF and condition.get("childId"):
        return frozenset({condition.get("childId")})
    return frozenset()


def _implied_step(node: Element, conjunction: bool) -> Step[frozenset[str]]:
    """Forces whose absence makes `node`'s conditions hold (an and-node: all of them; or: any)."""
    parts: list[frozenset[str]] = [_missing_force(c) for c in children(node, "conditions", "condition")]
    for group in children(node, "conditionGroups", "conditionGroup"):
        parts.append((yield _implied_step(group, (group.get("type") or "and") != "or")))
    if not parts:
        return ALWAYS if conjunction else frozenset()
    if conjunction:
        found = parts[0]
        for part in parts[1:]:
            found = part if found == ALWAYS else found if part == ALWAYS else found & part
        return found
    union: frozenset[str] = frozenset()
    for part in parts:
        if part == ALWAYS:
            return ALWAYS
        union |= part
    return union


def gating_forces(element: Element | None) -> frozenset[str]:
    """Forces without which a `set hidden true` modifier of the element always holds (ALWAYS: always hidden)."""
    found: frozenset[str] = frozenset()
    for modifier, groups in _hide_modifiers(element, "true"):
        implied = run(_implied_step(modifier, True))
        for group in groups:
            outer = run(_implied_step(group, True))
            implied = implied if outer == ALWAYS else outer if implied == ALWAYS else implied & outer
        if implied == ALWAYS:
            return ALWAYS
        found |= implied
    return found


def _leaf_conditions(node: Element) -> list[Element]:
    """Every condition under a modifier or group, at any depth (iteratively)."""
    return [c for c in node.iter("{*}condition")]


def unhiding_options(element: Element | None, is_local: Callable[[Element], bool]) -> tuple[bool, set[str]] | None:
    """How a `set hidden false` modifier un-hides the element: (always, childIds it needs); None if none does."""
    if element is None:
        return None
    needs: set[str] = set()
    found = False
    for modifier, groups in _hide_modifiers(element, "false"):
        conditions = [c for node in (modifier, *groups) for c in _leaf_conditions(node)]
        if not conditions:
            return True, set()
        if all(is_local(c) for c in conditions):
            found = True
            needs.update(c.get("childId") or "" for c in conditions)
    return (False, needs - {""}) if found else None


def is_unit_local(condition: Element) -> bool:
    """A count of selections made inside the unit (not the army, not a catalogue or force)."""
    return condition.get("field") == "selections" and (condition.get("scope") or "") not in ARMY_SCOPES


class Visibilities:
    """The visibility of each (element, link) met in one scope, decided once (shared entries recur)."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self._memo: dict[tuple[Element, Element | None], Visibility] = {}
        self._gates: dict[Element, frozenset[str]] = {}
        self._unhides: dict[Element, tuple[bool, set[str]] | None] = {}

    def of(self, element: Element, link: Element | None = None) -> Visibility:
        key = (element, link)
        if key not in self._memo:
            self._memo[key] = self._decide(element, link)
        return self._memo[key]

    def _name(self, element_id: str) -> str:
        resolved = self.scope.resolve(element_id)
        return (resolved[0].get("name") or element_id).strip() if resolved else element_id

    def _gating(self, element: Element | None) -> frozenset[str]:
        if element is None or not _has_modifiers(element):
            return frozenset()
        if element not in self._gates:
            self._gates[element] = gating_forces(element)
        return self._gates[element]

    def _unhiding(self, element: Element | None) -> tuple[bool, set[str]] | None:
        if element is None or not _has_modifiers(element):
            return None
        if element not in self._unhides:
            self._unhides[element] = unhiding_options(element, is_unit_local)
        return self._unhides[element]

    def _decide(self, element: Element, link: Element | None) -> Visibility:
        forces = self._gating(element) | self._gating(link)
        if forces >= ALWAYS:
            return Visibility(False, reason="hidden")
        if forces:
            return Visibility(False, reason="force-only: " + ", ".join(sorted(self._name(f) for f in forces)))
        if not (is_hidden(element) or is_hidden(link)):
            return SHOWN
        unhides = [u for u in (self._unhiding(e) for e in (link, element)) if u is not None]
        if any(always for always, _ in unhides):
            return SHOWN
        needs = {n for _, names in unhides for n in names}
        if not needs:
            return Visibility(False, reason="hidden")
        return Visibility(True, unlocked_by=", ".join(sorted({self._name(n) for n in needs})))
