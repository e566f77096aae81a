"""Points of a BattleScribe unit: the `pts` cost and the model-count tiers its modifiers give; only the one
shape whose model count is certain is read (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from pipeline.sources.bsdata.index import Element, Scope, children, is_hidden, local_name
from pipeline.sources.bsdata.walk import POINTS_COST

_T = TypeVar("_T")
_COUNT_CONDITIONS = {"atLeast": 0, "greaterThan": 1, "equalTo": 0}


@dataclass(frozen=True)
class ModelRange:
    """Model count bounds of a unit, and the points cost of each model entry that has one."""

    minimum: int | None
    maximum: int | None
    model_costs: tuple[float, ...] = ()


@dataclass
class PointsTiers:
    """(models, cost) options of a unit, smallest first, plus modifiers not understood."""

    tiers: list[tuple[int, int]] = field(default_factory=list)
    skipped: int = 0


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _selection_limits(*elements: Element | None) -> tuple[int | None, int | None]:
    """min/max `selections` constraints (scope parent) of an entry; the link's win."""
    low: int | None = None
    high: int | None = None
    for element in elements:
        if element is None:
            continue
        for constraint in children(element, "constraints", "constraint"):
            value = _number(constraint.get("value"))
            if constraint.get("field") != "selections" or constraint.get("scope") != "parent" or value is None:
                continue
            if constraint.get("type") == "min":
                low = int(value)
            elif constraint.get("type") == "max":
                high = int(value)
    return low, high


@dataclass(frozen=True)
class _Option:
    """A member of a container: how often it may be selected, and models per selection."""

    low: int
    high: int | None
    per_low: int
    per_high: int | None
    counts_as_selection: bool = True


def _at_least(options: list[_Option], group_low: int | None) -> int:
    """Fewest models: each option at its minimum, then the cheapest filler up to the group minimum."""
    total = sum(o.low * o.per_low for o in options)
    chosen = sum(o.low for o in options if o.counts_as_selection)
    fillers = [o.per_low for o in options if o.counts_as_selection and (o.high is None or o.high > o.low)]
    if group_low and group_low > chosen and fillers:
        total += (group_low - chosen) * min(fillers)
    return total


def _at_most(options: list[_Option], group_high: int | None) -> int | None:
    """Most models: the richest options first, within their and the group's maximum (None: no limit)."""
    total = sum(o.per_high or 0 for o in options if not o.counts_as_selection)
    if any(o.per_high is None for o in options if not o.counts_as_selection):
        return None
    remaining = group_high
    for option in sorted((o for o in options if o.counts_as_selection), key=lambda o: -(o.per_high or 0)):
        if option.per_high == 0:
            continue
        limits = [x for x in (option.high, remaining) if x is not None]
        if not limits or option.per_high is None:
            return None
        take = min(limits)
        total += take * option.per_high
        remaining = None if remaining is None else remaining - take
    return total


class _ModelCounter:
    """Model count bounds of a unit: model entries, option groups, composition upgrades.

    Selection constraints (`min`/`max`, scope parent) bound each entry; a group's own
    constraints bound the selections of the entries in it and in its sub-groups (a
    `9 - 19 Khorne Berzerkers` group with a sub-group of alternative models), and
    composition upgrades (`1 Runtherd and 10 Gretchin`) count their models per selection.
    """

    def __init__(self, scope: Scope, skip_group: Callable[[Element], bool]) -> None:
        self.scope = scope
        self.skip_group = skip_group
        self._stack: set[int] = set()
        self.model_costs: list[float] = []

    def container(self, parent: Element) -> tuple[int, int | None]:
        """Models in an entry: each direct group is its own pool, each direct entry an option."""
        options: list[_Option] = []
        for element, link in self.scope.members(parent):
            if element is None or is_hidden(element) or is_hidden(link) or id(element) in self._stack:
                continue
            if local_name(element) == "selectionEntryGroup":
                low, high = self._guarded(element, partial(self._pool, element, link))
                options.append(_Option(1, 1, low, high, counts_as_selection=False))
            else:
                options.extend(self._entry_option(element, link))
        return _at_least(options, None), _at_most(options, None)

    def _pool(self, group: Element, link: Element | None) -> tuple[int, int | None]:
        if self.skip_group(group):
            return 0, 0
        group_low, group_high = _selection_limits(group, link)
        options = self._pool_options(group)
        return _at_least(options, group_low), _at_most(options, group_high)

    def _pool_options(self, group: Element) -> list[_Option]:
        options: list[_Option] = []
        for element, link in self.scope.members(group):
            if element is None or is_hidden(element) or is_hidden(link) or id(element) in self._stack:
                continue
            if local_name(element) != "selectionEntryGroup":
                options.extend(self._entry_option(element, link))
            elif not self.skip_group(element):
                options.extend(self._guarded(element, partial(self._pool_options, element)))
        return options

    def _guarded(self, element: Element, measure: Callable[[], _T]) -> _T:
        """Measure an element once per path (link cycles end here)."""
        self._stack.add(id(element))
        try:
            return measure()
        finally:
            self._stack.discard(id(element))

    def _entry_option(self, entry: Element, link: Element | None) -> list[_Option]:
        low, high = _selection_limits(entry, link)
        if entry.get("type") == "model":
            cost = _base_cost(entry, link)[0]
            if cost:
                self.model_costs.append(cost)
            return [_Option(low or 0, high, 1, 1)]
        inner_low, inner_high = self._guarded(entry, partial(self.container, entry))
        if inner_low == 0 and inner_high == 0:
            return []  # wargear: no models inside
        return [_Option(low or 0, high, inner_low, inner_high)]


def model_range(
    entry: Element,
    link: Element | None,
    scope: Scope,
    skip_group: Callable[[Element], bool] = lambda _: False,
) -> ModelRange:
    """Smallest and largest model count of a unit entry (a `model` entry is one model).

    `skip_group` lets the caller rule out groups it knows hold no models (upgrade menus).
    """
    if entry.get("type") == "model":
        return ModelRange(1, 1)
    counter = _ModelCounter(scope, skip_group)
    low, high = counter.container(entry)
    return ModelRange(low or None, high if high else None, tuple(counter.model_costs))


def _base_cost(entry: Element, link: Element | None) -> tuple[float | None, set[str]]:
    """The `pts` cost (the link's overrides the entry's) and the points cost type ids."""
    value: float | None = None
    type_ids: set[str] = set()
    for element in (entry, link):
        if element is None:
            continue
        for cost in children(element, "costs", "cost"):
            if (cost.get("name") or "").strip().casefold() == POINTS_COST:
                value = _number(cost.get("value"))
                type_ids.add(cost.get("typeId") or "")
    return value, type_ids


def _tier_threshold(modifier: Element, model_ids: set[str]) -> int | None:
    """Model count at which a `set` modifier applies, if its only condition is a model count."""
    conditions = list(modifier.iterfind("{*}conditions/{*}condition"))
    nested = modifier.find("{*}conditionGroups") is not None or modifier.find("{*}repeats") is not None
    if nested or len(conditions) != 1:
        return None
    condition = conditions[0]
    value = _number(condition.get("value"))
    counted = condition.get("childId") in model_ids | {"model"}
    kind = condition.get("type") or ""
    if condition.get("field") != "selections" or not counted or kind not in _COUNT_CONDITIONS or value is None:
        return None
    threshold = int(value) + _COUNT_CONDITIONS[kind]
    return threshold if threshold >= 1 else None


def _modifier_tiers(
    entry: Element, link: Element | None, type_ids: set[str], model_ids: set[str], result: PointsTiers
) -> list[tuple[int, int, bool]]:
    """(threshold, cost, open-ended) per understood modifier; counts the others as skipped."""
    found: list[tuple[int, int, bool]] = []
    for element in (entry, link):
        for modifier in [] if element is None else children(element, "modifiers", "modifier"):
            if modifier.get("field") not in type_ids:
                continue
            threshold = _tier_threshold(modifier, model_ids)
            cost = _number(modifier.get("value"))
            if modifier.get("type") != "set" or threshold is None or cost is None:
                result.skipped += 1
                continue
            condition = modifier.find("{*}conditions/{*}condition")
            found.append((threshold, int(cost), condition.get("type") != "equalTo"))
    return found


def _per_model_tiers(base: float, models: ModelRange) -> dict[int, int]:
    """Units costed per model (`Carnifex: 90` each): the smallest and largest size.

    Only when every costed model entry has the same cost; otherwise the size is unknown.
    """
    costs = set(models.model_costs)
    if len(costs) != 1 or models.minimum is None:
        return {}
    each = costs.pop()
    sizes = {models.minimum, models.maximum or models.minimum}
    return {n: int(base + n * each) for n in sizes}


def points_tiers(entry: Element, link: Element | None, models: ModelRange, model_ids: set[str]) -> PointsTiers:
    """Points options of a unit: the base cost at its smallest size, then each understood tier."""
    result = PointsTiers()
    base, type_ids = _base_cost(entry, link)
    by_models: dict[int, int] = _per_model_tiers(base or 0, models) if models.model_costs else {}
    if base is not None and base > 0 and not by_models:
        by_models[models.minimum or 1] = int(base)
    tiers = sorted(_modifier_tiers(entry, link, type_ids, model_ids, result))
    for position, (threshold, cost, open_ended) in enumerate(tiers):
        count = threshold
        is_last = position == len(tiers) - 1
        if is_last and open_ended and models.maximum is not None and models.maximum >= threshold:
            count = models.maximum
        if cost > 0:
            by_models[count] = cost
    result.tiers = sorted(by_models.items())
    return result
