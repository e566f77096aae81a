"""Points of a BattleScribe unit at each size and with each add-on: every points modifier compiled and
evaluated on the unit's compositions, in three-valued logic (docs/sources.md#points-by-unit-size)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise

from pipeline.sources.bsdata.composition import Composition
from pipeline.sources.bsdata.index import Element, Scope, children, local_name
from pipeline.sources.bsdata.trampoline import Step, run
from pipeline.sources.bsdata.visibility import ARMY_SCOPES
from pipeline.sources.bsdata.walk import POINTS_COST

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "atLeast": lambda a, b: a >= b,
    "greaterThan": lambda a, b: a > b,
    "atMost": lambda a, b: a <= b,
    "lessThan": lambda a, b: a < b,
    "equalTo": lambda a, b: a == b,
    "notEqualTo": lambda a, b: a != b,
}
MODEL = "model"
#: Sizes priced one by one at most when every model adds the same points (`Mek Gunz`: 1, 2, 3).
MAX_LINEAR_SIZES = 5


@dataclass(frozen=True)
class PointsOption:
    models: int
    cost: int
    description: str
    #: The composition priced (selections per node of the model tree): which models the option holds.
    counts: tuple[int, ...] = field(default=(), compare=False)


@dataclass
class PointsTiers:
    """Options of a unit (smallest first), its smallest size, and what became of each points entry:
    `used` (costs and modifiers in a published option) or `skipped` (with why)."""

    options: list[PointsOption] = field(default_factory=list)
    minimum: int | None = None
    modifiers: int = 0
    used: set[Element] = field(default_factory=set)
    skipped: list[tuple[Element, str]] = field(default_factory=list)
    unread: list[tuple[Element, str]] = field(default_factory=list)


class NotASize(ValueError):
    """A condition that does not count the unit's models (the reason says what it counts)."""


@dataclass(frozen=True)
class _Unknown:
    """A condition the parser cannot decide (the army, a detachment, wargear): neither true nor false."""

    reason: str


Counted = list[int] | str | _Unknown


@dataclass
class _Tree:
    """A compiled condition tree: leaves are (comparison, value, counted nodes, MODEL or unknown)."""

    conjunction: bool
    leaves: list[tuple[str, float, Counted]] = field(default_factory=list)
    groups: list[_Tree] = field(default_factory=list)

    def unknown(self) -> str | None:
        """The first undecidable condition's reason, if any."""
        pending = [self]
        while pending:
            tree = pending.pop(0)
            for _, _, counted in tree.leaves:
                if isinstance(counted, _Unknown):
                    return counted.reason
            pending.extend(tree.groups)
        return None


@dataclass
class _Modifier:
    element: Element
    kind: str
    value: float
    condition: _Tree
    repeats: list[tuple[float, int, bool, list[int] | str]]


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def points_types(scope: Scope) -> set[str]:
    """Ids of the cost types named `pts` in scope."""
    return {
        cost_id
        for catalogue in scope.catalogues
        for cost_id, element in catalogue.ids.items()
        if local_name(element) == "costType" and (element.get("name") or "").strip().casefold() == POINTS_COST
    }


def _base_cost(*elements: Element | None) -> tuple[float, Element | None]:
    """The `pts` cost of an entry (its link's overrides it) and the cost element it is read from."""
    value, source = 0.0, None
    for element in elements:
        for cost in [] if element is None else children(element, "costs", "cost"):
            if (cost.get("name") or "").strip().casefold() == POINTS_COST:
                value, source = _float(cost.get("value")) or 0.0, cost
    return value, source


def _modifiers(element: Element | None) -> Iterator[tuple[Element, list[Element]]]:
    """(modifier, enclosing modifier groups) of an element, groups at any depth."""
    if element is None:
        return
    pending: list[tuple[Element, list[Element]]] = [(element, [])]
    while pending:
        holder, groups = pending.pop(0)
        for modifier in children(holder, "modifiers", "modifier"):
            yield modifier, groups
        pending.extend((g, [*groups, g]) for g in children(holder, "modifierGroups", "modifierGroup"))


class _Compiler:
    """Turns conditions into trees over composition nodes; NotASize for anything else."""

    def __init__(self, composition: Composition, scope: Scope) -> None:
        self.composition = composition
        self.scope = scope
        self.by_id: dict[str, list[int]] = {}
        for index, node in enumerate(composition.nodes):
            for node_id in node.ids:
                self.by_id.setdefault(node_id, []).append(index)

    def counted(self, element: Element) -> list[int] | str:
        """The nodes (or MODEL: every model) a condition or repeat counts."""
        scope, child = element.get("scope") or "", element.get("childId") or ""
        if element.get("field") != "selections" or scope in ARMY_SCOPES:
            raise NotASize(f"condition on the army ({element.get('field')} in {scope or '?'})")
        if (element.get("percentValue") or "").lower() == "true":
            raise NotASize("condition on a percentage")
        if child == MODEL:
            return MODEL
        nodes = self.by_id.get(child)
        if nodes and any(self.composition.holds_models(i) for i in nodes):
            return nodes
        if nodes and 0 in nodes:
            return [0]
        resolved = self.scope.resolve(child)
        what = f"a {local_name(resolved[0])} without models" if resolved else "an id not in scope"
        raise NotASize(f"condition counts {what}")

    def leaf(self, condition: Element) -> tuple[str, float, Counted]:
        """A comparison of a count of models; anything else is an undecidable leaf with its reason."""
        kind, value = condition.get("type") or "", _float(condition.get("value"))
        if kind in {"instanceOf", "notInstanceOf"}:
            return kind, 0.0, _Unknown(f"condition on the army ({kind})")
        if kind not in _COMPARE or value is None:
            return kind, 0.0, _Unknown(f"condition type {kind or '?'}")
        try:
            return kind, value, self.counted(condition)
        except NotASize as why:
            return kind, value, _Unknown(str(why))

    def tree(self, node: Element, conjunction: bool = True) -> Step[_Tree]:
        compiled = _Tree(conjunction, [self.leaf(c) for c in children(node, "conditions", "condition")])
        for group in children(node, "conditionGroups", "conditionGroup"):
            compiled.groups.append((yield self.tree(group, (group.get("type") or "and") != "or")))
        return compiled

    def modifier(self, modifier: Element, groups: list[Element]) -> _Modifier:
        kind, value = modifier.get("type") or "", _float(modifier.get("value"))
        if kind not in {"set", "increment", "decrement"} or value is None:
            raise NotASize(f"modifier type {kind or '?'}")
        condition = _Tree(True, groups=[run(self.tree(node)) for node in (*groups, modifier)])
        repeats = [
            (_float(r.get("value")) or 1.0, int(_float(r.get("repeats")) or 1), r.get("roundUp") == "true")
            for r in children(modifier, "repeats", "repeat")
        ]
        counted = [self.counted(r) for r in children(modifier, "repeats", "repeat")]  # NotASize: not priced
        if repeats and kind == "set":
            raise NotASize("a repeated set")
        return _Modifier(modifier, kind, value, condition, [(*r, c) for r, c in zip(repeats, counted, strict=True)])


class _Pricer:
    """The cost of a composition: every entry's points, after its modifiers."""

    def __init__(self, composition: Composition, scope: Scope, types: set[str], tiers: PointsTiers) -> None:
        self.composition = composition
        compiler = _Compiler(composition, scope)
        self.modifiers: list[_Modifier] = []
        self.ever_active: set[Element] = set()
        self.undecided: dict[Element, str] = {}
        self.priced: list[tuple[int, float, Element | None, list[_Modifier]]] = []
        for index, node in enumerate(composition.nodes):
            if index and not node.selectable:
                continue
            mods = []
            for element in (node.element, node.link):
                for modifier, groups in _modifiers(element):
                    if modifier.get("field") not in types:
                        continue
                    tiers.modifiers += 1
                    try:
                        mods.append(compiler.modifier(modifier, groups))
                    except NotASize as why:
                        tiers.skipped.append((modifier, str(why)))
            base, source = _base_cost(node.element, node.link)
            self.modifiers.extend(mods)
            if base or mods:
                self.priced.append((index, base, source, mods))

    def coupled(self, pool: int) -> bool:
        """A pool whose models a modifier counts together with the others (all models, or the whole unit)."""
        pending = [m.condition for m in self.modifiers]
        while pending:
            tree = pending.pop()
            pending.extend(tree.groups)
            for _, _, counted in tree.leaves:
                if isinstance(counted, str) or (isinstance(counted, list) and 0 in counted):
                    return True
        return False

    def cost(self, counts: list[int]) -> tuple[float, set[Element]]:
        models = self.composition.models(counts)
        selections = self._selections(counts)
        total, active = 0.0, set()
        for index, base, source, mods in self.priced:
            if not selections[index]:
                continue
            value = base
            if source is not None:
                active.add(source)
            for mod in mods:
                holds = run(_holds(mod.condition, models, self._count))
                if holds:
                    value = self._apply(mod, value, models)
                    active.add(mod.element)
                elif holds is None:
                    self.undecided.setdefault(mod.element, mod.condition.unknown() or "an undecidable condition")
            total += value * selections[index]
        self.ever_active |= active
        return total, active

    def _count(self, counted: list[int] | str, models: list[int]) -> int:
        return models[0] if isinstance(counted, str) else sum(models[i] for i in counted)

    def _apply(self, mod: _Modifier, value: float, models: list[int]) -> float:
        if mod.kind == "set":
            return mod.value
        times = 1
        if mod.repeats:
            times = 0
            for per, repeats, round_up, counted in mod.repeats:
                ratio = self._count(counted, models) / per if per else 0
                times += repeats * (int(-(-ratio // 1)) if round_up else int(ratio))
        return value + mod.value * times * (1 if mod.kind == "increment" else -1)

    def _selections(self, counts: list[int]) -> list[int]:
        """Selections of each entry in the whole unit (an entry inside an upgrade repeats with it)."""
        total = [1] * len(self.composition.nodes)
        for index, node in enumerate(self.composition.nodes):
            outer = 1 if node.parent is None else total[node.parent]
            total[index] = outer * (counts[index] if node.selectable else 1)
        return total


def _holds(tree: _Tree, models: list[int], count: Callable[[list[int] | str, list[int]], int]) -> Step[bool | None]:
    """The tree's truth on a composition, in three values: None when an undecidable condition decides it."""
    results: list[bool | None] = []
    for kind, value, counted in tree.leaves:
        results.append(None if isinstance(counted, _Unknown) else _COMPARE[kind](count(counted, models), value))
    for group in tree.groups:
        results.append((yield _holds(group, models, count)))
    if not results:
        return True
    decisive = not tree.conjunction  # False settles an and-group, True an or-group
    if decisive in results:
        return decisive
    return None if None in results else not decisive


def _label(models: int) -> str:
    return f"{models} model{'' if models == 1 else 's'}"


def _size_steps(priced: list[tuple[int, float, list[int], set[Element]]], open_ended: bool) -> list[int]:
    """Positions in the growth path to publish: one per price (see the module docstring)."""
    steps: list[list[int]] = []
    for position, (_, cost, _, _) in enumerate(priced):
        if steps and priced[steps[-1][-1]][1] == cost:
            steps[-1].append(position)
        else:
            steps.append([position])
    chosen = [steps[0][0]]
    for number, step in enumerate(steps[1:], start=1):
        last = number == len(steps) - 1
        chosen.append(step[0] if last and open_ended else step[-1])
    increments = {round(b[1] - a[1], 6) for a, b in pairwise(priced)}
    if len(steps) > MAX_LINEAR_SIZES and all(len(s) == 1 for s in steps) and len(increments) == 1:
        chosen = [steps[0][0], steps[-1][0]]  # the same price per model at every size: smallest and largest
    return chosen


def points_tiers(composition: Composition, scope: Scope, types: set[str]) -> PointsTiers:
    """Points options of a unit: each size's price and each add-on's, from its modifiers."""
    tiers = PointsTiers()
    pricer = _Pricer(composition, scope, types, tiers)
    composition.set_addons([p for p in composition.optional if not pricer.coupled(p)])
    path = composition.growth()
    priced: list[tuple[int, float, list[int], set[Element]]] = []
    for counts in path:
        models = composition.model_count(counts) or 1
        if not priced or models > priced[-1][0]:
            cost, active = pricer.cost(counts)
            priced.append((models, cost, counts, active))
    tiers.minimum = composition.model_count(path[0]) or None
    chosen = [priced[p] for p in _size_steps(priced, composition.can_grow(path[-1]))]
    for models, cost, counts, active in chosen:
        _add(tiers, PointsOption(models, round(cost), _label(models), tuple(counts)), active)
        for pool in composition.addons:
            _add_addon(tiers, composition, pricer, (models, cost, counts), pool)
    tiers.options.sort(key=lambda o: (o.models, o.cost, o.description))
    _classify_costs(tiers, pricer)
    for modifier in pricer.modifiers:
        if modifier.element in pricer.undecided and modifier.element not in pricer.ever_active:
            tiers.skipped.append((modifier.element, pricer.undecided[modifier.element]))
        elif modifier.element not in pricer.ever_active:
            tiers.skipped.append((modifier.element, "condition never holds within the unit's size limits"))
        elif modifier.element not in tiers.used:
            tiers.skipped.append((modifier.element, "a size between the published ones"))
    return tiers


def _classify_costs(tiers: PointsTiers, pricer: _Pricer) -> None:
    """Costs of entries no published option holds: an alternative model priced like a published
    sibling is explained; one priced differently is a loadout price not published (unread)."""
    nodes = pricer.composition.nodes
    used = {index: base for index, base, source, _ in pricer.priced if source in tiers.used}
    for index, base, source, _ in pricer.priced:
        if source is None or source in tiers.used or not base:
            continue
        siblings = [i for i in used if nodes[i].parent == nodes[index].parent and i != index]
        if any(used[i] == base for i in siblings):
            tiers.skipped.append((source, "an alternative model at the price of a published one"))
        else:
            tiers.unread.append((source, "an entry priced apart from the published options (loadout price)"))


def _add(tiers: PointsTiers, option: PointsOption, active: set[Element]) -> None:
    if option.cost > 0 and option not in tiers.options:
        tiers.options.append(option)
        tiers.used |= active


def _add_addon(
    tiers: PointsTiers,
    composition: Composition,
    pricer: _Pricer,
    size: tuple[int, float, list[int]],
    pool: int,
) -> None:
    models, cost, counts = size
    room = composition.addon_room(pool)
    name = composition.nodes[pool].name
    for selections in sorted({1, room or 1}):
        with_addon = composition.with_addon(counts, pool, selections)
        if with_addon is None:
            continue
        total, active = pricer.cost(with_addon)
        if round(total) != round(cost):
            label = name if selections == 1 else f"{selections} {name}"
            models_in = composition.model_count(with_addon)
            option = PointsOption(models_in, round(total), f"{_label(models)} + {label}", tuple(with_addon))
            _add(tiers, option, active)
