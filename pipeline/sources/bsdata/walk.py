"""Walk one BattleScribe unit entry: collect its profiles, rules and categories across links, skipping what
is not datasheet content (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.sources.bsdata.index import Catalogue, Element, Scope, children, is_hidden, local_name

UNIT_PROFILE = "unit"
POINTS_COST = "pts"


def type_name(profile: Element) -> str:
    """Profile type name, lower case (`unit`, `ranged weapons`, `abilities`, ...)."""
    return (profile.get("typeName") or "").strip().casefold()


def is_weapon_profile(profile: Element) -> bool:
    name = type_name(profile)
    return "weapon" in name and ("ranged" in name or "melee" in name)


@dataclass(frozen=True)
class ProfileHit:
    """A profile reached from the unit, with the entry that carries it."""

    profile: Element
    catalogue: Catalogue
    model: str | None
    owner_kind: str  # "unit" (the datasheet's own entry), "model" or "upgrade"
    owner: Element


@dataclass(frozen=True)
class RuleHit:
    rule: Element
    catalogue: Catalogue
    model: str | None
    owner: Element
    parameter: str | None


@dataclass(frozen=True)
class CategoryHit:
    link: Element
    model: str | None


@dataclass(frozen=True)
class LinkProblem:
    """A link whose target id is in no catalogue of the scope."""

    link: Element
    catalogue: Catalogue


@dataclass
class UnitContent:
    """Everything the walk found under one unit entry."""

    entry: Element
    catalogue: Catalogue
    profiles: list[ProfileHit] = field(default_factory=list)
    rules: list[RuleHit] = field(default_factory=list)
    categories: list[CategoryHit] = field(default_factory=list)
    problems: list[LinkProblem] = field(default_factory=list)
    model_entry_ids: set[str] = field(default_factory=set)
    hidden_skipped: int = 0
    purchases_skipped: int = 0

    def has_unit_profile(self) -> bool:
        return any(type_name(h.profile) == UNIT_PROFILE for h in self.profiles)


def _costs(*elements: Element | None) -> dict[str, tuple[str, float]]:
    """Cost name (lower case) -> (type id, value); later elements (the link) override earlier ones."""
    costs: dict[str, tuple[str, float]] = {}
    for element in elements:
        if element is None:
            continue
        for cost in children(element, "costs", "cost"):
            try:
                value = float(cost.get("value") or 0)
            except ValueError:
                continue
            costs[(cost.get("name") or "").strip().casefold()] = (cost.get("typeId") or "", value)
    return costs


def is_purchase(entry: Element, link: Element | None, hidden_cost_types: frozenset[str] = frozenset()) -> bool:
    """An upgrade bought on top of the datasheet (enhancement, campaign upgrade), not wargear.

    Campaign upgrades declare a cost in a hidden cost type (Crusade Points), or a
    non-zero cost in any type other than points; enhancements carry no weapon or Unit
    profile and cost points or are limited to one per roster. Wargear is free in 10th
    edition and never unique per army, or at least carries a weapon profile.
    """
    if (entry.get("type") or "upgrade") in {"unit", "model"}:
        return False
    costs = _costs(entry, link)
    if any(type_id in hidden_cost_types for type_id, _ in costs.values()):
        return True
    if any(value and name != POINTS_COST for name, (_, value) in costs.items()):
        return True
    profiles = children(entry, "profiles", "profile")
    if any(is_weapon_profile(p) or type_name(p) == UNIT_PROFILE for p in profiles):
        return False
    return bool(costs.get(POINTS_COST, ("", 0.0))[1]) or _unique_per_roster(entry, link)


def _unique_per_roster(entry: Element, link: Element | None) -> bool:
    """A `max` selections constraint scoped to the roster: one per army (an enhancement, a relic)."""
    constraints = [c for e in (entry, link) if e is not None for c in children(e, "constraints", "constraint")]
    return any(c.get("type") == "max" and c.get("scope") == "roster" for c in constraints)


def _name_parameter(link: Element) -> str | None:
    """`Scouts` + modifier `append 6"` -> parameter `6"` (how BSData parameterises rules)."""
    for modifier in children(link, "modifiers", "modifier"):
        if modifier.get("field") == "name" and modifier.get("type") in {"append", "set"}:
            value = (modifier.get("value") or "").strip()
            if value:
                return value
    return None


class UnitWalker:
    """Flattens one unit entry; links resolve through the scope of the catalogue being parsed."""

    # State of the walk in progress (set by `walk`); the memo dicts live for the whole scope.
    _content: UnitContent
    _seen: set[tuple[Element, str | None]]
    _root: Element

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self._purchases: dict[tuple[Element, Element | None], bool] = {}
        self._barren: dict[Element, bool] = {}

    def _is_purchase(self, entry: Element, link: Element | None) -> bool:
        """Memoised: shared upgrade entries are met again by every unit of the scope."""
        key = (entry, link)
        if key not in self._purchases:
            self._purchases[key] = is_purchase(entry, link, self.scope.hidden_cost_types())
        return self._purchases[key]

    def walk(self, entry: Element, catalogue: Catalogue, link: Element | None) -> UnitContent:
        self._content = UnitContent(entry=entry, catalogue=catalogue)
        self._seen = set()
        self._root = entry
        self._entry(entry, catalogue, None, link)
        return self._content

    def _first_visit(self, element: Element, model: str | None) -> bool:
        key = (element, model)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _entry(self, entry: Element, catalogue: Catalogue, model: str | None, link: Element | None) -> None:
        if is_hidden(entry) or is_hidden(link):
            self._content.hidden_skipped += 1
            return
        if entry is not self._root and self._is_purchase(entry, link):
            self._content.purchases_skipped += 1
            return
        if not self._first_visit(entry, model):
            return
        owner_kind = "upgrade"
        if entry is self._root:
            owner_kind = "unit"
        elif entry.get("type") == "model":
            owner_kind, model = "model", (entry.get("name") or "").strip() or model
            self._content.model_entry_ids.add(entry.get("id") or "")
        for carrier in (entry, link):
            if carrier is not None:
                self._info(carrier, catalogue, model, owner_kind, entry)
                if owner_kind != "upgrade":
                    self._content.categories.extend(
                        CategoryHit(c, model) for c in children(carrier, "categoryLinks", "categoryLink")
                    )
        self._children(entry, catalogue, model)

    def _group(self, group: Element, catalogue: Catalogue, model: str | None, link: Element | None) -> None:
        if is_hidden(group) or is_hidden(link):
            self._content.hidden_skipped += 1
            return
        if self.is_barren(group):
            self._content.purchases_skipped += 1
            return
        if self._first_visit(group, model):
            self._children(group, catalogue, model)

    def is_barren(self, group: Element) -> bool:
        """True if a group holds only purchases and hidden entries (upgrade menus: Enhancements, Crusade).

        Memoised for the whole scope: such groups are linked from nearly every unit. A group
        met again through a link cycle counts as not barren, so it is walked.
        """
        if group not in self._barren:
            self._barren[group] = False
            self._barren[group] = all(self._member_is_barren(e, link) for e, link in self.scope.members(group))
        return self._barren[group]

    def _member_is_barren(self, element: Element | None, link: Element | None) -> bool:
        if element is None:
            return False  # an unresolved link: walk it so it is reported
        if is_hidden(element) or is_hidden(link):
            return True
        if local_name(element) == "selectionEntryGroup":
            return self.is_barren(element)
        return self._is_purchase(element, link)

    def _children(self, parent: Element, catalogue: Catalogue, model: str | None) -> None:
        for entry in children(parent, "selectionEntries", "selectionEntry"):
            self._entry(entry, catalogue, model, None)
        for group in children(parent, "selectionEntryGroups", "selectionEntryGroup"):
            self._group(group, catalogue, model, None)
        for link in children(parent, "entryLinks", "entryLink"):
            self._entry_link(link, catalogue, model)

    def _follow(self, link: Element, catalogue: Catalogue) -> tuple[Element, Catalogue] | None:
        """A visible link's target; a hidden link is counted, an unresolved one reported."""
        if is_hidden(link):
            self._content.hidden_skipped += 1
            return None
        resolved = self.scope.resolve(link.get("targetId"))
        if resolved is None:
            self._content.problems.append(LinkProblem(link, catalogue))
        return resolved

    def _entry_link(self, link: Element, catalogue: Catalogue, model: str | None) -> None:
        resolved = self._follow(link, catalogue)
        if resolved is None:
            return
        target, target_catalogue = resolved
        if local_name(target) == "selectionEntry":
            self._entry(target, target_catalogue, model, link)
        elif local_name(target) == "selectionEntryGroup":
            self._group(target, target_catalogue, model, link)

    def _info(self, carrier: Element, catalogue: Catalogue, model: str | None, kind: str, owner: Element) -> None:
        """Profiles, rules, info links and info groups carried by an entry (or its link)."""
        for profile in children(carrier, "profiles", "profile"):
            self._profile(profile, catalogue, model, kind, owner)
        for rule in children(carrier, "rules", "rule"):
            if not is_hidden(rule):
                self._content.rules.append(RuleHit(rule, catalogue, model, owner, None))
        for group in children(carrier, "infoGroups", "infoGroup"):
            if not is_hidden(group) and self._first_visit(group, model):
                self._info(group, catalogue, model, kind, owner)
        for link in children(carrier, "infoLinks", "infoLink"):
            self._info_link(link, catalogue, model, kind, owner)

    def _profile(self, profile: Element, catalogue: Catalogue, model: str | None, kind: str, owner: Element) -> None:
        if is_hidden(profile):
            self._content.hidden_skipped += 1
        else:
            self._content.profiles.append(ProfileHit(profile, catalogue, model, kind, owner))

    def _info_link(self, link: Element, catalogue: Catalogue, model: str | None, kind: str, owner: Element) -> None:
        resolved = self._follow(link, catalogue)
        if resolved is None:
            return
        target, target_catalogue = resolved
        tag = local_name(target)
        if is_hidden(target):
            self._content.hidden_skipped += 1
        elif tag == "profile":
            self._content.profiles.append(ProfileHit(target, target_catalogue, model, kind, owner))
        elif tag == "rule":
            self._content.rules.append(RuleHit(target, target_catalogue, model, owner, _name_parameter(link)))
        elif tag == "infoGroup" and self._first_visit(target, model):
            self._info(target, target_catalogue, model, kind, owner)
