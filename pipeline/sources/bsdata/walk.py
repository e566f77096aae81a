"""Walk one BattleScribe unit entry, iteratively: collect its profiles, rules and categories across links,
skipping what is not datasheet content and recording why (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pipeline.sources.bsdata.defaults import GroupDefaults, min_selections, own_default
from pipeline.sources.bsdata.index import Catalogue, Element, Scope, children, local_name
from pipeline.sources.bsdata.trampoline import Step, run
from pipeline.sources.bsdata.visibility import Visibilities, Visibility

UNIT_PROFILE = "unit"
POINTS_COST = "pts"


def type_name(profile: Element) -> str:
    """Profile type name, lower case (`unit`, `ranged weapons`, `abilities`, ...)."""
    return (profile.get("typeName") or "").strip().casefold()


def is_weapon_profile(profile: Element) -> bool:
    name = type_name(profile)
    return "weapon" in name and ("ranged" in name or "melee" in name)


@dataclass(frozen=True)
class Context:
    """Where the walk is: the model, the kind of the nearest entry, the option that un-hid it."""

    model: str | None = None
    kind: str = "unit"  # "unit" (the datasheet's own entry), "model" or "upgrade"
    unlocked_by: str | None = None
    mandatory: bool = True  # every element from the model (or unit) down to here is in every loadout
    default: int = 1  # how many of it each model (or the unit) has in the default loadout; 0: none
    replay: bool = False  # walked again for its default weapons only (first met off the default loadout)


@dataclass(frozen=True)
class ProfileHit:
    """A profile reached from the unit, with the entry (or group) that carries it."""

    profile: Element
    catalogue: Catalogue
    model: str | None
    owner_kind: str  # "unit" (the datasheet's own entry), "model" or "upgrade"
    owner: Element
    unlocked_by: str | None = None
    mandatory: bool = True
    default: int = 0  # how many each model carries in the default loadout (0: not in it)


@dataclass(frozen=True)
class RuleHit:
    rule: Element
    catalogue: Catalogue
    model: str | None
    owner: Element
    parameter: str | None
    unlocked_by: str | None = None


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
    model_names: set[str] = field(default_factory=set)
    hidden_skipped: int = 0
    purchases_skipped: int = 0
    #: Elements not walked and why ("hidden", "purchase", "force-only: <force>"): the self-check reads them.
    skipped: list[tuple[Element, str]] = field(default_factory=list)
    force_only: Counter[str] = field(default_factory=Counter)
    unlocked: int = 0
    #: Entries, groups and info groups walked (the self-check tells "not read" from "not reached" with it).
    visited: set[Element] = field(default_factory=set)
    #: Default weapons of elements met first off the default loadout, then on it (walked again for them).
    default_weapons: list[ProfileHit] = field(default_factory=list)
    #: (model, group, why) of required weapon choices their defaults leave unfilled: the loadout is open.
    open_choices: list[tuple[str | None, Element, str]] = field(default_factory=list)

    def skip(self, element: Element, reason: str) -> None:
        self.skipped.append((element, reason))
        if reason.startswith("force-only"):
            self.force_only[reason] += 1
        elif reason == "purchase":
            self.purchases_skipped += 1
        else:
            self.hidden_skipped += 1

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


def carries_content(entry: Element) -> bool:
    """A weapon or Unit profile on the entry itself."""
    profiles = children(entry, "profiles", "profile")
    return any(is_weapon_profile(p) or type_name(p) == UNIT_PROFILE for p in profiles)


def is_purchase(
    entry: Element,
    link: Element | None,
    hidden_cost_types: frozenset[str] = frozenset(),
    holds_content: Callable[[Element], bool] = carries_content,
) -> bool:
    """An upgrade bought on top of the datasheet (enhancement, campaign upgrade), not wargear.

    Campaign upgrades cost something other than points (Crusade Points), or declare a
    cost in a hidden cost type and hold no content; enhancements hold no weapon, Unit
    profile or model, and cost points or are limited to one per roster. Wargear is free
    in 10th edition and never unique per army, or at least carries a weapon profile;
    an upgrade holding models (`5 models`) is the unit's composition.
    """
    if (entry.get("type") or "upgrade") in {"unit", "model"}:
        return False
    costs = _costs(entry, link)
    if any(value and name != POINTS_COST for name, (_, value) in costs.items()):
        return True
    if holds_content(entry):
        return False
    if any(type_id in hidden_cost_types for type_id, _ in costs.values()):
        return True
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


def _min_selections(*elements: Element | None) -> int:
    """The `min` selections constraint of an entry or its link (0 if none)."""
    return min_selections(*elements)


class UnitWalker:
    """Flattens one unit entry; links resolve through the scope of the catalogue being parsed."""

    # State of the walk in progress (set by `walk`); the memo dicts live for the whole scope.
    _content: UnitContent
    _seen: set[tuple[Element, str | None]]
    _seen_default: set[tuple[Element, str | None]]
    _root: Element

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.visibility = Visibilities(scope)
        self.defaults = GroupDefaults(scope, self.visibility)
        self._purchases: dict[tuple[Element, Element | None], bool] = {}
        self._barren: dict[Element, bool] = {}
        self._single_member: dict[Element, bool] = {}
        self._content_memo: dict[Element, bool] = {}
        self._carried_memo: dict[Element, tuple[list[Element], ...]] = {}
        self._models_memo: dict[Element, bool] = {}

    def _is_purchase(self, entry: Element, link: Element | None) -> bool:
        """Memoised: shared upgrade entries are met again by every unit of the scope."""
        key = (entry, link)
        if key not in self._purchases:
            hidden = self.scope.hidden_cost_types()
            self._purchases[key] = is_purchase(entry, link, hidden, self._holds_content)
        return self._purchases[key]

    def _holds_content(self, entry: Element) -> bool:
        """A weapon or Unit profile, or a model entry, in the entry or any member below it (memoised)."""
        if entry not in self._content_memo:
            self._content_memo[entry] = self._search_content(entry)
        return self._content_memo[entry]

    def _search_content(self, entry: Element) -> bool:
        pending, seen = [entry], {entry}
        while pending:
            element = pending.pop()
            if carries_content(element):
                return True
            for member, _link in self.scope.members(element):
                if member is None or member in seen:
                    continue
                if member.get("type") == "model" and local_name(member) == "selectionEntry":
                    return True
                seen.add(member)
                pending.append(member)
        return False

    def walk(self, entry: Element, catalogue: Catalogue, link: Element | None) -> UnitContent:
        self._content = UnitContent(entry=entry, catalogue=catalogue)
        self._seen = set()
        self._seen_default = set()
        self._root = entry
        run(self._entry(entry, catalogue, Context(), link, None))
        return self._content

    def _first_visit(self, element: Element, model: str | None) -> bool:
        key = (element, model)
        if key in self._seen:
            return False
        self._seen.add(key)
        self._content.visited.add(element)
        return True

    def _shown(self, element: Element, link: Element | None, replay: bool = False) -> Visibility | None:
        """The element's visibility if it is walked; None (the skip recorded, unless replaying) if not."""
        visibility = self.visibility.of(element, link)
        if not visibility.shown:
            if not replay:
                self._content.skip(element, visibility.reason or "hidden")
            return None
        if visibility.unlocked_by and not replay:
            self._content.unlocked += 1
        return visibility

    def _default_visit(self, element: Element, ctx: Context) -> bool:
        """First time on the default loadout for this model (a replay walks each element once)."""
        key = (element, ctx.model)
        if not ctx.default or key in self._seen_default:
            return False
        self._seen_default.add(key)
        return True

    def _default_amount(self, entry: Element, link: Element | None, parent: Element | None) -> int:
        """How many of an entry its parent has by default (`defaults.py`)."""
        if parent is not None and local_name(parent) == "selectionEntryGroup":
            return self.defaults.of(parent).amounts.get((entry, link), 0)
        return own_default(entry, link)

    def _mandatory(self, entry: Element, link: Element | None, parent: Element | None) -> bool:
        """In every loadout of its parent: a `min` of one or more, or the only member of a required group."""
        if _min_selections(entry, link) >= 1:
            return True
        if parent is None or local_name(parent) != "selectionEntryGroup" or _min_selections(parent) < 1:
            return False
        if parent not in self._single_member:
            shown = [e for e, lk in self.scope.members(parent) if e is not None and self.visibility.of(e, lk).shown]
            self._single_member[parent] = len(shown) == 1
        return self._single_member[parent]

    def _entry(
        self, entry: Element, catalogue: Catalogue, ctx: Context, link: Element | None, parent: Element | None
    ) -> Step[None]:
        unlocked = None
        if entry is not self._root:
            visibility = self._shown(entry, link, ctx.replay)
            if visibility is None:
                return
            if self._is_purchase(entry, link):
                if not ctx.replay:
                    self._content.skip(entry, "purchase")
                return
            unlocked = visibility.unlocked_by
        inner = self._entry_context(entry, link, parent, ctx, unlocked)
        default_visit = self._default_visit(entry, inner)
        if ctx.replay or not self._first_visit(entry, ctx.model):
            if default_visit:  # met off the default loadout first: walk it again for its default weapons
                replay = replace(inner, replay=True)
                for carrier in (entry, link):
                    if carrier is not None:
                        yield self._info(carrier, catalogue, replay, entry)
                yield self._children(entry, catalogue, replay)
            return
        ctx = inner
        for carrier in (entry, link):
            if carrier is not None:
                yield self._info(carrier, catalogue, ctx, entry)
                if ctx.kind != "upgrade":
                    self._content.categories.extend(
                        CategoryHit(c, ctx.model) for c in children(carrier, "categoryLinks", "categoryLink")
                    )
        yield self._children(entry, catalogue, ctx)

    def _entry_context(
        self, entry: Element, link: Element | None, parent: Element | None, ctx: Context, unlocked: str | None
    ) -> Context:
        unlocked_by = unlocked or ctx.unlocked_by
        if entry is self._root:
            return Context(unlocked_by=unlocked_by)
        if entry.get("type") == "model":
            self._content.model_entry_ids.add(entry.get("id") or "")
            model = (entry.get("name") or "").strip() or ctx.model
            if model:
                self._content.model_names.add(model)
            return Context(model, "model", unlocked_by, True, 1, ctx.replay)
        mandatory = ctx.mandatory and self._mandatory(entry, link, parent)
        default = ctx.default * self._default_amount(entry, link, parent)
        return Context(ctx.model, "upgrade", unlocked_by, mandatory, default, ctx.replay)

    def _group(self, group: Element, catalogue: Catalogue, ctx: Context, link: Element | None) -> Step[None]:
        visibility = self._shown(group, link, ctx.replay)
        if visibility is None:
            return
        barren = yield self._barren_step(group)
        if barren:
            if not ctx.replay:
                self._content.skip(group, "purchase")
            return
        if ctx.default and not ctx.replay:
            self._note_open_choice(group, link, ctx)
        default_visit = self._default_visit(group, ctx)
        if not ctx.replay and self._first_visit(group, ctx.model):
            ctx = replace(ctx, unlocked_by=visibility.unlocked_by or ctx.unlocked_by)
            yield self._info(group, catalogue, ctx, group)
            yield self._children(group, catalogue, ctx)
        elif default_visit:  # met off the default loadout first: walk it again for its default weapons
            replay = replace(ctx, replay=True)
            yield self._info(group, catalogue, replay, group)
            yield self._children(group, catalogue, replay)

    def _note_open_choice(self, group: Element, link: Element | None, ctx: Context) -> None:
        """A required choice of wargear (not of models) its defaults leave unfilled: no default loadout."""
        why = self.defaults.of(group).open
        if why is None:
            return
        shown = [e for e, lk in self.scope.members(group) if e is not None and self.visibility.of(e, lk).shown]
        if not any(self._holds_models(e) for e in shown) and any(self._holds_content(e) for e in shown):
            self._content.open_choices.append((ctx.model, group, why))

    def _holds_models(self, element: Element) -> bool:
        """A model entry, or a group or upgrade with one below it (memoised)."""
        if element not in self._models_memo:
            pending, seen, found = [element], {element}, False
            while pending and not found:
                current = pending.pop()
                found = current.get("type") == "model" and local_name(current) == "selectionEntry"
                for member, _link in self.scope.members(current):
                    if member is not None and member not in seen:
                        seen.add(member)
                        pending.append(member)
            self._models_memo[element] = found
        return self._models_memo[element]

    def is_barren(self, group: Element) -> bool:
        """True if a group holds only purchases and hidden entries (upgrade menus: Enhancements, Crusade)."""
        return bool(run(self._barren_step(group)))

    def _barren_step(self, group: Element) -> Step[bool]:
        """Memoised for the whole scope: such groups are linked from nearly every unit. A group
        met again through a link cycle counts as not barren, so it is walked."""
        if group in self._barren:
            return self._barren[group]
        self._barren[group] = False
        barren = True
        for element, link in self.scope.members(group):
            if element is None:
                barren = False  # an unresolved link: walk it so it is reported
            elif not self.visibility.of(element, link).shown:
                continue
            elif local_name(element) == "selectionEntryGroup":
                barren = yield self._barren_step(element)
            else:
                barren = self._is_purchase(element, link)
            if not barren:
                break
        self._barren[group] = barren
        return barren

    def _children(self, parent: Element, catalogue: Catalogue, ctx: Context) -> Step[None]:
        for member, link in self.scope.members(parent):
            if link is None:
                target, target_catalogue = member, catalogue
            else:
                resolved = self._follow(link, catalogue, ctx.replay)
                if resolved is None:
                    continue
                target, target_catalogue = resolved
            if local_name(target) == "selectionEntry":
                yield self._entry(target, target_catalogue, ctx, link, parent)
            elif local_name(target) == "selectionEntryGroup":
                yield self._group(target, target_catalogue, ctx, link)

    def _follow(self, link: Element, catalogue: Catalogue, replay: bool = False) -> tuple[Element, Catalogue] | None:
        """A link's target; an unresolved one is reported (its visibility is decided with the target)."""
        resolved = self.scope.resolve(link.get("targetId"))
        if resolved is None and replay:
            return None
        if resolved is None:
            if self.visibility.of(link).shown:
                self._content.problems.append(LinkProblem(link, catalogue))
            else:
                self._content.skip(link, "hidden")
        return resolved

    def _carried(self, carrier: Element) -> tuple[list[Element], ...]:
        """(profiles, rules, info groups, info links) of a carrier, memoised for the scope."""
        if carrier not in self._carried_memo:
            boxes = (("profiles", "profile"), ("rules", "rule"), ("infoGroups", "infoGroup"), ("infoLinks", "infoLink"))
            self._carried_memo[carrier] = tuple(children(carrier, box, tag) for box, tag in boxes)
        return self._carried_memo[carrier]

    def _info(self, carrier: Element, catalogue: Catalogue, ctx: Context, owner: Element) -> Step[None]:
        """Profiles, rules, info links and info groups carried by an entry, a group or a link."""
        profiles, rules, groups, links = self._carried(carrier)
        for profile in profiles:
            self._profile(profile, None, catalogue, ctx, owner)
        for rule in [] if ctx.replay else rules:
            self._rule(rule, None, catalogue, ctx, owner)
        for group in groups:
            yield self._info_group(group, None, catalogue, ctx, owner)
        for link in links:
            resolved = self._follow(link, catalogue, ctx.replay)
            if resolved is None:
                continue
            target, target_catalogue = resolved
            tag = local_name(target)
            if tag == "profile":
                self._profile(target, link, target_catalogue, ctx, owner)
            elif tag == "rule" and not ctx.replay:
                self._rule(target, link, target_catalogue, ctx, owner)
            elif tag == "infoGroup":
                yield self._info_group(target, link, target_catalogue, ctx, owner)

    def _info_group(
        self, group: Element, link: Element | None, catalogue: Catalogue, ctx: Context, owner: Element
    ) -> Step[None]:
        visibility = self._shown(group, link, ctx.replay)
        first = visibility is not None and (
            self._default_visit(group, ctx) if ctx.replay else self._first_visit(group, ctx.model)
        )
        if visibility is not None and first:
            inner = replace(ctx, unlocked_by=visibility.unlocked_by or ctx.unlocked_by)
            yield self._info(group, catalogue, inner, owner)

    def _profile(
        self, profile: Element, link: Element | None, catalogue: Catalogue, ctx: Context, owner: Element
    ) -> None:
        visibility = self._shown(profile, link, ctx.replay)
        if visibility is not None:
            unlocked_by = visibility.unlocked_by or ctx.unlocked_by
            hit = ProfileHit(profile, catalogue, ctx.model, ctx.kind, owner, unlocked_by, ctx.mandatory, ctx.default)
            if not ctx.replay:
                self._content.profiles.append(hit)
            elif ctx.default and is_weapon_profile(profile):
                self._content.default_weapons.append(hit)

    def _rule(self, rule: Element, link: Element | None, catalogue: Catalogue, ctx: Context, owner: Element) -> None:
        visibility = self._shown(rule, link)
        if visibility is not None:
            parameter = _name_parameter(link) if link is not None else None
            unlocked_by = visibility.unlocked_by or ctx.unlocked_by
            self._content.rules.append(RuleHit(rule, catalogue, ctx.model, owner, parameter, unlocked_by))
