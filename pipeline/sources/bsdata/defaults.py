"""Default selections of BattleScribe choice groups: what a group holds when nobody chooses (its
`defaultSelectionEntryId`, its members' `min` and `defaultAmount`), and why a required one stays open
(docs/sources.md#default-loadouts)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.loadouts.names import key
from pipeline.sources.bsdata.composition import selection_limits
from pipeline.sources.bsdata.index import Element, Scope, children, local_name
from pipeline.sources.bsdata.visibility import Visibilities

Member = tuple[Element, Element | None]
NO_DEFAULT = "no default"
STALE_DEFAULT = "default id names nothing"
_COUNT = re.compile(r"^\d+\s+")


def default_amount_attribute(*elements: Element | None) -> int:
    """`defaultAmount` of an entry or its link (`1`, `4`, or per force `1,1`: the first number)."""
    amount = 0
    for element in elements:
        first = ((element.get("defaultAmount") or "") if element is not None else "").split(",")[0].strip()
        if first.isdigit():
            amount = max(amount, int(first))
    return amount


def min_selections(*elements: Element | None) -> int:
    """The `min` selections constraint of an entry, group or link (0 if none)."""
    low = 0
    for element in elements:
        for constraint in [] if element is None else children(element, "constraints", "constraint"):
            if constraint.get("type") == "min" and constraint.get("field") == "selections":
                try:
                    low = max(low, int(float(constraint.get("value") or 0)))
                except ValueError:
                    continue
    return low


def own_default(entry: Element, link: Element | None) -> int:
    """How many of an entry its parent always has: its `min` or `defaultAmount`."""
    return max(min_selections(entry, link), default_amount_attribute(entry, link))


def _name(element: Element, link: Element | None = None) -> str:
    """A name without a leading count (`2 Twin pulse carbines` -> `Twin pulse carbines`)."""
    name = ((link if link is not None else element).get("name") or element.get("name") or "").strip()
    return _COUNT.sub("", name)


@dataclass(frozen=True)
class GroupDefault:
    """Default selections per member of a group; `open` says why a required group stays unfilled."""

    amounts: dict[Member, int] = field(default_factory=dict)
    open: str | None = None


class GroupDefaults:
    """Default selections of the groups of one scope (memoised: groups are shared by many units)."""

    def __init__(self, scope: Scope, visibility: Visibilities) -> None:
        self.scope = scope
        self.visibility = visibility
        self._memo: dict[Element, GroupDefault] = {}

    def of(self, group: Element) -> GroupDefault:
        if group not in self._memo:
            self._memo[group] = self._read(group)
        return self._memo[group]

    def _read(self, group: Element) -> GroupDefault:
        """Members' own defaults; then the member the default id names (directly, or an element of the
        same name elsewhere in scope) once, or what the group still needs; a required group short of its
        `min` is filled by the member it is named after (`Heavy Bolter`), its only member, or the only
        member already chosen that has room (`Rokkit pistol` 1 of 2)."""
        shown = [(e, lk) for e, lk in self.scope.members(group) if e is not None and self.visibility.of(e, lk).shown]
        amounts = {m: own_default(*m) if local_name(m[0]) == "selectionEntry" else 0 for m in shown}
        need = min_selections(group) - sum(amounts.values())
        named = self.named(group, shown)
        if named is not None:
            amounts[named] += max(need, 0 if amounts[named] else 1)
        elif need > 0 and (filler := self._filler(group, shown, amounts, need)) is not None:
            amounts[filler] += need
        short = min_selections(group) - sum(amounts.values())
        if short <= 0:
            return GroupDefault(amounts)
        default_id = group.get("defaultSelectionEntryId") or ""
        return GroupDefault(amounts, STALE_DEFAULT if default_id not in {"", "none"} else NO_DEFAULT)

    def named(self, group: Element, shown: list[Member] | None = None) -> Member | None:
        """The member a group's `defaultSelectionEntryId` names: directly, or by the name of the element
        it names elsewhere in scope (None: no such member)."""
        if shown is None:
            shown = [
                (e, lk) for e, lk in self.scope.members(group) if e is not None and self.visibility.of(e, lk).shown
            ]
        default_id = group.get("defaultSelectionEntryId") or ""
        if default_id in {"", "none"}:
            return None
        for element, link in shown:
            if default_id in {element.get("id"), None if link is None else link.get("id")}:
                return element, link
        elsewhere = self.scope.resolve(default_id)
        if elsewhere is None:
            return None
        same = [m for m in shown if key(_name(*m)) == key(_name(elsewhere[0]))]
        return same[0] if len(same) == 1 else None

    def _filler(self, group: Element, shown: list[Member], amounts: dict[Member, int], need: int) -> Member | None:
        entries = [m for m in shown if local_name(m[0]) == "selectionEntry"]
        same = [m for m in entries if key(_name(*m)) == key(_name(group))]
        if len(same) == 1:
            return same[0]
        if len(entries) == 1:
            return entries[0]
        chosen = [m for m in entries if amounts[m] and _room(m, amounts[m]) >= need]
        return chosen[0] if len(chosen) == 1 else None


def _room(member: Member, taken: int) -> int:
    high = selection_limits(*member)[1]
    return 1_000_000 if high is None else high - taken
