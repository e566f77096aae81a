"""Self-check of every catalogue: elements of four kinds in its XML against what was published, each gap
explained or not, so an unseen catalogue reports its own losses (docs/sources.md#bsdata-self-check)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from pipeline.sources.bsdata.index import Catalogue, Element, Scope, children, local_name
from pipeline.sources.bsdata.invulns import is_invuln_characteristic, mentions_invuln
from pipeline.sources.bsdata.text import node_text
from pipeline.sources.bsdata.walk import POINTS_COST, UNIT_PROFILE, is_weapon_profile, type_name
from schemas.records import SourceCheck

CHECKS = ("statlines", "weapons", "invulns", "points")
UNREACHED = "not linked from any unit in the folder"
NOT_READ = "reached by a unit but not read"
_CONTAINERS = {"selectionEntry", "selectionEntryGroup", "infoGroup", "entryLink", "infoLink"}


@dataclass
class CheckLedger:
    """What the parse of one folder did with each element, filled by the walk and the record builders."""

    published: dict[str, set[Element]] = field(default_factory=lambda: {c: set() for c in CHECKS})
    explained: dict[str, dict[Element, str]] = field(default_factory=lambda: {c: {} for c in CHECKS})
    problems: dict[str, dict[Element, str]] = field(default_factory=lambda: {c: {} for c in CHECKS})
    visited: set[Element] = field(default_factory=set)
    _skips: list[tuple[Element, str, Scope]] = field(default_factory=list)
    _taint: dict[Element, str] | None = None

    def publish(self, check: str, element: Element) -> None:
        self.published[check].add(element)

    def explain(self, check: str, element: Element, reason: str) -> None:
        self.explained[check].setdefault(element, reason)

    def problem(self, check: str, element: Element, reason: str) -> None:
        self.problems[check].setdefault(element, reason)

    def skip(self, element: Element, reason: str, scope: Scope) -> None:
        """An element not walked: it and what it links are explained by `reason` (unless published)."""
        self._skips.append((element, reason, scope))
        self._taint = None

    def skips(self) -> list[tuple[Element, str, Scope]]:
        """The `skip` calls, in order."""
        return list(self._skips)

    def taint(self) -> dict[Element, str]:
        """Skipped elements and, transitively, the targets of the links inside them, with the first reason."""
        if self._taint is None:
            taint: dict[Element, str] = {}
            pending = list(self._skips)
            while pending:
                element, reason, scope = pending.pop()
                if element in taint:
                    continue
                taint[element] = reason
                for link in element.iter("{*}entryLink", "{*}infoLink"):
                    resolved = scope.resolve(link.get("targetId"))
                    if resolved is not None and resolved[0] not in taint:
                        pending.append((resolved[0], reason, scope))
            self._taint = taint
        return self._taint


def _points_owner(element: Element) -> Element | None:
    """The entry or link a cost or modifier belongs to (through `costs`, `modifiers`, modifier groups)."""
    owner = element.getparent()
    while owner is not None and local_name(owner) not in {"selectionEntry", "entryLink", "selectionEntryGroup"}:
        owner = owner.getparent()
    return owner


def _is_points_entry(element: Element, types: set[str]) -> bool:
    tag = local_name(element)
    owner = _points_owner(element)
    if owner is None or (local_name(owner) == "selectionEntry" and owner.get("type") not in {"unit", "model"}):
        return False
    if tag == "cost":
        try:
            value = float(element.get("value") or 0)
        except ValueError:
            return False
        return (element.get("name") or "").strip().casefold() == POINTS_COST and value > 0
    return element.get("field") in types


def expected_elements(root: Element, types: set[str]) -> dict[str, list[Element]]:
    """The elements each check counts in one file (by their type alone)."""
    found: dict[str, list[Element]] = {c: [] for c in CHECKS}
    for profile in root.iter("{*}profile"):
        kind = type_name(profile)
        if kind == UNIT_PROFILE:
            found["statlines"].append(profile)
        elif is_weapon_profile(profile):
            found["weapons"].append(profile)
        if not is_weapon_profile(profile) and _mentions(profile):  # a Unit profile too: its characteristic
            found["invulns"].append(profile)
    for rule in root.iter("{*}rule"):
        if mentions_invuln(rule.get("name"), node_text(rule.find("{*}description"))):
            found["invulns"].append(rule)
    found["points"] = [e for e in root.iter("{*}cost", "{*}modifier") if _is_points_entry(e, types)]
    return found


def _mentions(profile: Element) -> bool:
    items = children(profile, "characteristics", "characteristic")
    if any(is_invuln_characteristic(c.get("name") or "") for c in items):
        return True
    return mentions_invuln(profile.get("name"), *(node_text(c) for c in items))


def _ancestors(element: Element) -> Iterator[Element]:
    current = element
    while current is not None:
        yield current
        current = current.getparent()


def classify(element: Element, check: str, ledger: CheckLedger) -> tuple[str, str | None]:
    """('published' | 'explained' | 'unexplained', reason) of one element."""
    if element in ledger.published[check]:
        return "published", None
    if element in ledger.explained[check]:
        return "explained", ledger.explained[check][element]
    if element in ledger.problems[check]:
        return "unexplained", ledger.problems[check][element]
    taint = ledger.taint()
    for ancestor in _ancestors(element):
        if ancestor in taint:
            return "explained", taint[ancestor]
    for ancestor in _ancestors(element):
        if local_name(ancestor) in _CONTAINERS and ancestor is not element:
            return ("unexplained", NOT_READ) if ancestor in ledger.visited else ("explained", UNREACHED)
    return "explained", UNREACHED


def check_records(catalogue: Catalogue, ledger: CheckLedger, types: set[str]) -> list[SourceCheck]:
    """One `source_checks` row per check for a catalogue (none for an unreadable file)."""
    if catalogue.root is None:
        return []
    rows = []
    for check, elements in expected_elements(catalogue.root, types).items():
        tally: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        for element in elements:
            status, reason = classify(element, check, ledger)
            tally[status] += 1
            if reason is not None:
                reasons[f"{status}: {reason}"] += 1
        rows.append(
            SourceCheck(
                source_id=catalogue.source_id,
                check_name=check,
                expected=len(elements),
                published=tally["published"],
                explained=tally["explained"],
                unexplained=tally["unexplained"],
                reasons=dict(sorted(reasons.items())),
            )
        )
    return rows


def merge_ledger(into: CheckLedger, other: CheckLedger) -> None:
    """Add one file's ledger to the folder's, as if its calls had been made on it (first reason kept)."""
    for check in CHECKS:
        into.published[check] |= other.published[check]
        for element, reason in other.explained[check].items():
            into.explain(check, element, reason)
        for element, reason in other.problems[check].items():
            into.problem(check, element, reason)
    into.visited |= other.visited
    for element, reason, scope in other.skips():
        into.skip(element, reason, scope)
