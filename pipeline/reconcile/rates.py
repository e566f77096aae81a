"""Match rates between two source formats, per faction both cover, and why the rest did not match.

A rate counts datasheets (a copy counts as its home: it is left out): every matched one, and
each unmatched one of a faction the other source covers (it holds at least `COVERAGE_SHARE`
as many datasheets of the faction, and every faction keyword of the datasheet — its chapter
or sub-faction — occurs there too). Rules: docs/reconcile.md#report.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.reconcile.keys import LEGEND_TAGS, singular_key
from pipeline.reconcile.matching import ResolvedUnit
from pipeline.reconcile.members import Member

#: The other source covers a faction when it holds at least this share of this source's datasheets of it.
COVERAGE_SHARE = 0.5

LEGENDS_IN_ONE = "legends in one source"
LEGENDS = LEGEND_TAGS["legends"]
NEWER = "newer than the other source"
NOT_COVERED = "faction not in the other source"
UNMATCHED = "genuinely unmatched"


@dataclass
class Side:
    """What one format holds, to judge another format's datasheets against it."""

    members: list[tuple[ResolvedUnit, Member]] = field(default_factory=list)
    per_faction: Counter[str] = field(default_factory=Counter)
    keywords: set[str] = field(default_factory=set)
    names: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))
    newest: str = ""

    def add(self, unit: ResolvedUnit, member: Member) -> None:
        self.members.append((unit, member))
        self.per_faction[unit.faction_key] += 1
        self.keywords |= member.faction_keywords
        self.names[_loose(member.name_key)].add((unit.faction_key, member.legend or ""))
        self.newest = max(self.newest, member.dating.date or "")


def _sides(units: Sequence[ResolvedUnit]) -> dict[str, Side]:
    sides: dict[str, Side] = defaultdict(Side)
    for unit in units:
        for member in unit.members:
            sides[member.fmt].add(unit, member)
    return sides


def _loose(name_key: str) -> str:
    """Plurals and spacing folded, as the matching's singular pass does."""
    return singular_key(name_key).replace(" ", "")


def _covered(unit: ResolvedUnit, member: Member, mine: Side, other: Side) -> bool:
    share = other.per_faction[unit.faction_key] >= COVERAGE_SHARE * mine.per_faction[unit.faction_key]
    return share and (not other.keywords or member.faction_keywords <= other.keywords)


def _reason(unit: ResolvedUnit, member: Member, other: Side) -> tuple[str, str]:
    """Why a covered datasheet found no datasheet of the other source, and the evidence."""
    elsewhere = other.names.get(_loose(member.name_key), set())
    same_faction = [legend for faction, legend in elsewhere if faction == unit.faction_key]
    if same_faction:
        tags = ", ".join(sorted(t or "current" for t in same_faction))
        return LEGENDS_IN_ONE, f"the other source has it as {tags}"
    if not elsewhere and member.legend == LEGENDS:
        return LEGENDS_IN_ONE, "a Legends datasheet the other source does not list"
    if not elsewhere and (member.dating.date or "") > other.newest:
        return NEWER, f"{member.dating.label} after the other source's newest date {other.newest}"
    if elsewhere:
        return UNMATCHED, "same name under " + ", ".join(sorted({f for f, _ in elsewhere}))
    return UNMATCHED, "name not in the other source"


def _rate(matched: int, total: int) -> float | None:
    return round(matched / total, 4) if total else None


def match_rate(units: Sequence[ResolvedUnit], fmt: str, other: str) -> dict[str, Any]:
    """Per faction and in total, for both sides: datasheets counted, matched, rate, copies left out,
    datasheets of factions the other does not cover, unmatched by reason; and the unmatched list."""
    sides = _sides(units)
    rows: dict[str, dict[str, Any]] = {}
    unmatched: list[dict[str, str]] = []
    for side, against in ((fmt, other), (other, fmt)):
        mine, theirs = sides[side], sides[against]
        for unit, member in mine.members:
            row = rows.setdefault(unit.faction_key, {}).setdefault(side, _empty_row())
            if member.copy_of is not None:
                row["copies"] += 1
            elif against in unit.formats:
                row["datasheets"] += 1
                row["matched"] += 1
            elif not _covered(unit, member, mine, theirs):
                row["not_covered"] += 1
            else:
                row["datasheets"] += 1
                reason, detail = _reason(unit, member, theirs)
                row["unmatched"][reason] = row["unmatched"].get(reason, 0) + 1
                unmatched.append(_listed(unit, member, reason, detail))
    factions = {f: _finish(r, (fmt, other)) for f, r in sorted(rows.items()) if fmt in r and r[fmt]["datasheets"]}
    return {
        "factions": factions,
        "total": _total(factions, (fmt, other)),
        "unmatched": sorted(
            (u for u in unmatched if u["faction"] in factions), key=lambda u: (u["faction"], u["format"], u["name"])
        ),
    }


def _empty_row() -> dict[str, Any]:
    return {"datasheets": 0, "matched": 0, "copies": 0, "not_covered": 0, "unmatched": {}}


def _finish(row: dict[str, Any], sides: tuple[str, str]) -> dict[str, Any]:
    done = {}
    for side in sides:
        found = row.get(side, _empty_row())
        done[side] = {**found, "rate": _rate(found["matched"], found["datasheets"])}
    return done


def _listed(unit: ResolvedUnit, member: Member, reason: str, detail: str) -> dict[str, str]:
    return {
        "faction": unit.faction_key,
        "format": member.fmt,
        "datasheet_id": member.datasheet_id,
        "name": member.sheet.name,
        "reason": reason,
        "detail": detail,
    }


def _total(factions: dict[str, dict[str, Any]], sides: tuple[str, str]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for side in sides:
        sums = {k: sum(row[side][k] for row in factions.values()) for k in ("datasheets", "matched", "copies")}
        reasons: Counter[str] = Counter()
        for row in factions.values():
            reasons.update(row[side]["unmatched"])
        total[side] = {
            **sums,
            "rate": _rate(sums["matched"], sums["datasheets"]),
            "unmatched": dict(sorted(reasons.items())),
        }
    return total
