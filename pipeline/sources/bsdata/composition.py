"""The models a BattleScribe unit is made of and its compositions from the smallest up, which points
modifiers are evaluated on; read iteratively (docs/sources.md#points-by-unit-size)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.sources.bsdata.index import Element, Scope, children, local_name
from pipeline.sources.bsdata.visibility import Visibilities

#: Compositions listed per unit at most (a 100-model unit is far beyond any datasheet).
MAX_MODELS = 100


@dataclass
class Node:
    """An entry (model or upgrade) or a group of the unit, with its selection limits."""

    element: Element
    link: Element | None
    parent: int | None
    name: str
    low: int
    high: int | None
    kind: str  # "root", "model", "entry" (an upgrade holding models) or "group"
    children: list[int] = field(default_factory=list)

    @property
    def ids(self) -> set[str]:
        return {i for i in (self.element.get("id"), None if self.link is None else self.link.get("id")) if i}

    @property
    def selectable(self) -> bool:
        return self.kind in {"model", "entry"}


def _number(text: str | None) -> int | None:
    try:
        return int(float(text)) if text is not None else None
    except ValueError:
        return None


def selection_limits(*elements: Element | None) -> tuple[int, int | None]:
    """min/max `selections` of an entry or group in its parent (scope `parent` or a container id); the link's win."""
    low: int = 0
    high: int | None = None
    for element in elements:
        for constraint in [] if element is None else children(element, "constraints", "constraint"):
            value = _number(constraint.get("value"))
            scope = constraint.get("scope") or ""
            if constraint.get("field") != "selections" or value is None or scope in {"roster", "force", "self"}:
                continue
            if constraint.get("type") == "min":
                low = value
            elif constraint.get("type") == "max":
                high = value
    return low, high


class Composition:
    """The unit's model tree (pre-order: a parent before its children) and its compositions."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self._holds = self._model_holders()
        self._in_addon = [False] * len(nodes)
        self.addons: list[int] = []
        self.optional = self._optional_pools()

    # -- reading -------------------------------------------------------------------
    def models(self, counts: list[int]) -> list[int]:
        """Models under each node for a composition (`counts`: selections per node, per parent selection)."""
        return self._tally(counts)[0]

    def _tally(self, counts: list[int]) -> tuple[list[int], list[int]]:
        """(models under each node, models one more selection of each entry brings)."""
        per_selection = [0] * len(self.nodes)
        total = [0] * len(self.nodes)
        for index in range(len(self.nodes) - 1, -1, -1):
            node = self.nodes[index]
            inner = sum(total[c] for c in node.children)
            per_selection[index] = 1 if node.kind == "model" else inner
            total[index] = counts[index] * per_selection[index] if node.selectable else inner
        return total, per_selection

    def in_unit(self, counts: list[int]) -> list[int]:
        """Selections of each node in the whole unit (an entry inside an upgrade repeats with it)."""
        total = [1] * len(self.nodes)
        for index, node in enumerate(self.nodes):
            outer = 1 if node.parent is None else total[node.parent]
            total[index] = outer * (counts[index] if node.selectable else 1)
        return total

    def model_count(self, counts: list[int]) -> int:
        return self.models(counts)[0] if self.nodes else 0

    def holds_models(self, index: int) -> bool:
        return self._holds[index]

    # -- compositions ----------------------------------------------------------------
    def set_addons(self, pools: list[int]) -> None:
        """Price these optional pools on top of each size instead of growing into them."""
        self.addons = list(pools)
        self._in_addon = [False] * len(self.nodes)
        for pool in pools:
            pending = [pool]
            while pending:
                index = pending.pop()
                self._in_addon[index] = True
                pending.extend(self.nodes[index].children)

    def minimum(self) -> list[int]:
        """Every entry at its minimum, then each group filled up to its minimum (inner groups first)
        with its smallest member (fewest models per selection: `1 Spanner and 4 Lootas`)."""
        counts = [n.low if n.selectable else 0 for n in self.nodes]
        for index in range(len(self.nodes) - 1, -1, -1):
            node = self.nodes[index]
            if node.kind == "group":
                while self._group_selections(index, counts) < node.low:
                    filler = self._filler(index, counts, smallest=True)
                    if filler is None:
                        break
                    counts[filler] += 1
        return counts

    def growth(self, counts: list[int] | None = None) -> list[list[int]]:
        """The minimum composition, then one more selection of the roomiest core entry at a time."""
        path = [counts or self.minimum()]
        while self.model_count(path[-1]) < MAX_MODELS:
            following = self._grow(path[-1])
            if following is None:
                break
            path.append(following)
        return path

    def can_grow(self, counts: list[int]) -> bool:
        return self._grow(counts) is not None

    def with_addon(self, counts: list[int], pool: int, selections: int) -> list[int] | None:
        """`counts` with `selections` more selections inside an add-on pool (None if it cannot take them)."""
        counts = list(counts)
        for _ in range(selections):
            target = pool if self.nodes[pool].selectable else self._filler(pool, counts)
            if target is None or not self._room(target, counts):
                return None
            counts[target] += 1
        return counts

    def addon_room(self, pool: int) -> int | None:
        """How many selections an add-on pool takes at most (None: no limit)."""
        node = self.nodes[pool]
        if node.selectable:
            return node.high
        members = [self.nodes[i].high for i in self._members(pool)]
        room = None if None in members else sum(m or 0 for m in members)
        return node.high if room is None else min(room, node.high or room)

    # -- helpers -----------------------------------------------------------------------
    def _members(self, group: int) -> list[int]:
        """Selectable entries in a group and its sub-groups (not inside entries)."""
        found, pending = [], list(self.nodes[group].children)
        while pending:
            index = pending.pop(0)
            if self.nodes[index].kind == "group":
                pending[:0] = self.nodes[index].children
            else:
                found.append(index)
        return found

    def _group_selections(self, group: int, counts: list[int]) -> int:
        return sum(counts[i] for i in self._members(group))

    def _room(self, index: int, counts: list[int]) -> bool:
        node = self.nodes[index]
        if node.high is not None and counts[index] >= node.high:
            return False
        parent = node.parent
        while parent is not None and self.nodes[parent].kind == "group":
            group = self.nodes[parent]
            if group.high is not None and self._group_selections(parent, counts) >= group.high:
                return False
            parent = group.parent
        return True

    def _filler(self, group: int, counts: list[int], smallest: bool = False) -> int | None:
        """The member with models and the most room left (first on a tie); `smallest`: fewest models first."""
        candidates = [i for i in self._members(group) if self._holds[i] and self._room(i, counts)]
        per_selection = self._tally(counts)[1]
        if smallest:
            return min(candidates, key=lambda i: (per_selection[i], -self._space(i, counts)), default=None)
        return max(candidates, key=lambda i: self._space(i, counts), default=None)

    def _space(self, index: int, counts: list[int]) -> float:
        """Selections the entry can still take, within its own and its groups' maximum."""
        high = self.nodes[index].high
        space = float("inf") if high is None else high - counts[index]
        parent = self.nodes[index].parent
        while parent is not None and self.nodes[parent].kind == "group":
            group = self.nodes[parent]
            if group.high is not None:
                space = min(space, group.high - self._group_selections(parent, counts))
            parent = group.parent
        return space

    def _growable(self) -> list[int]:
        """Core entries holding models whose parents up to the root are groups (not inside an upgrade)."""
        found = []
        for index, node in enumerate(self.nodes):
            if not node.selectable or not self._holds[index] or self._in_addon[index]:
                continue
            parent = node.parent
            while parent is not None and self.nodes[parent].kind == "group":
                parent = self.nodes[parent].parent
            if parent == 0:
                found.append(index)
        return found

    def _grow(self, counts: list[int]) -> list[int] | None:
        """The next bigger composition: the move adding the fewest models (one more selection, or a
        selection swapped for a bigger member of its group: `2 Runtherds and 20 Gretchin`), roomiest first."""
        _, per_selection = self._tally(counts)
        growable = self._growable()
        moves: list[tuple[int, float, int | None, int]] = []
        for target in growable:
            if self._room(target, counts):
                moves.append((per_selection[target], -self._space(target, counts), None, target))
            for source in self._swappable(target, counts, growable):
                gain = per_selection[target] - per_selection[source]
                if gain > 0:
                    moves.append((gain, -self._space(target, counts), source, target))
        if not moves:
            return None
        _, _, giver, taker = min(moves, key=lambda m: (m[0], m[1]))
        grown = list(counts)
        grown[taker] += 1
        if giver is not None:
            grown[giver] -= 1
        return grown

    def _swappable(self, target: int, counts: list[int], growable: list[int]) -> list[int]:
        """Members of the target's group that could give up a selection for it (the group stays as full)."""
        node = self.nodes[target]
        if node.parent is None or self.nodes[node.parent].kind != "group":
            return []
        if node.high is not None and counts[target] >= node.high:
            return []
        siblings = self._members(node.parent)
        return [i for i in siblings if i != target and i in growable and counts[i] > self.nodes[i].low]

    def _optional_pools(self) -> list[int]:
        """Root members holding models that the smallest composition leaves empty, beside core members."""
        if not self.nodes:
            return []
        minimum = self.models(self.minimum())
        members = [i for i in self.nodes[0].children if self._holds[i]]
        pools = [i for i in members if minimum[i] == 0]
        return [] if len(pools) == len(members) else pools

    def _model_holders(self) -> list[bool]:
        holds = [False] * len(self.nodes)
        for index in range(len(self.nodes) - 1, -1, -1):
            node = self.nodes[index]
            holds[index] = node.kind == "model" or any(holds[c] for c in node.children)
        return holds


class CompositionReader:
    """Reads a unit's model tree through its scope, skipping what the walk skips."""

    def __init__(self, scope: Scope, visibility: Visibilities, skip_group: Callable[[Element], bool]) -> None:
        self.scope = scope
        self.visibility = visibility
        self.skip_group = skip_group

    def read(self, entry: Element, link: Element | None) -> Composition:
        if entry.get("type") == "model":  # a unit of one model
            return Composition([Node(entry, link, None, (entry.get("name") or "").strip(), 1, 1, "model")])
        nodes = [Node(entry, link, None, (entry.get("name") or "").strip(), 1, 1, "root")]
        pending: list[tuple[int, frozenset[int]]] = [(0, frozenset({id(entry)}))]
        while pending:
            parent, path = pending.pop()
            added = [self._add(nodes, parent, element, lk) for element, lk in self._members(nodes[parent].element)]
            for index in reversed([i for i in added if i is not None]):
                element = nodes[index].element
                if id(element) not in path and nodes[index].kind != "model":
                    pending.append((index, path | {id(element)}))
        return Composition(_preorder(nodes))

    def _members(self, parent: Element) -> list[tuple[Element, Element | None]]:
        found = []
        for element, link in self.scope.members(parent):
            if element is not None and self.visibility.of(element, link).shown:
                found.append((element, link))
        return found

    def _add(self, nodes: list[Node], parent: int, element: Element, link: Element | None) -> int | None:
        is_group = local_name(element) == "selectionEntryGroup"
        if is_group and self.skip_group(element):
            return None
        kind = "group" if is_group else "model" if element.get("type") == "model" else "entry"
        low, high = selection_limits(element, link)
        name = ((link if link is not None else element).get("name") or element.get("name") or "").strip()
        nodes.append(Node(element, link, parent, name, low, high, kind))
        nodes[parent].children.append(len(nodes) - 1)
        return len(nodes) - 1


def _preorder(nodes: list[Node]) -> list[Node]:
    """Renumber nodes so that every parent comes before its children (the readers rely on it)."""
    order: list[int] = []
    pending = [0]
    while pending:
        index = pending.pop()
        order.append(index)
        pending.extend(reversed(nodes[index].children))
    position = {old: new for new, old in enumerate(order)}
    renumbered = []
    for old in order:
        node = nodes[old]
        parent = None if node.parent is None else position[node.parent]
        kids = [position[c] for c in node.children]
        renumbered.append(Node(node.element, node.link, parent, node.name, node.low, node.high, node.kind, kids))
    return renumbered
