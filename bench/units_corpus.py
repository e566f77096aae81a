"""Unit options shaped by the real Wahapedia export (bench only): real statlines, weapons, sizes and Leaders.

Read-only from `DATASLATE_DATA/wahapedia-10e` (nothing is copied). This is not the
loadout resolver (issue 13, item 1): it only reproduces how often the real corpus
repeats defensive profiles and weapon profiles, which decides the dedupe rate.

- Targets: every points option (its "N models"); the datasheet's first model line
  takes the models the other lines (one model each) leave; every valid Leader
  pair (leader data) is also a target, the Leader attached to each of the
  Bodyguard's options. Keywords INFANTRY / VEHICLE / MONSTER / FLY / CHARACTER /
  PSYKER from the keywords table (what Anti reads).
- Attackers (per phase, same options): shooting, the first ranged weapon on
  every model but one, the next two on one model each (a 1-model unit carries up
  to four); fight, every model with a choice of the datasheet's melee weapons
  (the best against each target). An attached Leader adds its own entry.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from pipeline.config import wahapedia_dir
from pipeline.units import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from schemas.dice import Dice, parse_dice

KEYWORDS = frozenset({"INFANTRY", "VEHICLE", "MONSTER", "FLY", "CHARACTER", "PSYKER"})
_ANTI = re.compile(r"anti-([a-z]+) (\d)\+")
_VALUED = {"sustained_hits": "sustained hits", "rapid_fire": "rapid fire", "melta": "melta"}
_FLAGS = {
    "lethal_hits": "lethal hits",
    "devastating_wounds": "devastating wounds",
    "twin_linked": "twin-linked",
    "blast": "blast",
    "lance": "lance",
    "heavy": "heavy",
    "ignores_cover": "ignores cover",
    "precision": "precision",
    "indirect_fire": "indirect fire",
    "torrent": "torrent",
}


def _rows(name: str) -> list[dict[str, str]]:
    text = (wahapedia_dir() / name).read_text(encoding="utf-8-sig")
    lines = text.splitlines()
    header = lines[0].split("|")
    return [dict(zip(header, line.split("|"), strict=False)) for line in lines[1:] if line]


def _dice(text: str) -> Dice | None:
    try:
        return parse_dice(text.strip())
    except (ValueError, TypeError):
        return None


def _number(text: str, default: int) -> int:
    match = re.match(r"\s*(\d+)", text or "")
    return int(match.group(1)) if match else default


def _weapon(row: dict[str, str]) -> Weapon | None:
    attacks, strength, damage = _dice(row["A"]), _dice(row["S"]), _dice(row["D"])
    if attacks is None or strength is None or damage is None:
        return None
    abilities = re.sub(r"<[^>]*>", "", row["description"]).lower()
    kw: dict[str, object] = {k: v in abilities for k, v in _FLAGS.items()}
    for field, label in _VALUED.items():
        match = re.search(label + r" (d?\d+)", abilities)
        kw[field] = _dice(match.group(1).upper()) if match else None
    kw["anti"] = tuple((k.upper(), int(t)) for k, t in _ANTI.findall(abilities))
    skill = None if row["BS_WS"].strip() in ("N/A", "") or kw["torrent"] else _number(row["BS_WS"], 4)
    ap = -_number(row["AP"].lstrip("-"), 0)
    ranged = row["type"] == "Ranged"
    return Weapon(f"{row['datasheet_id']}:{row['line']}", attacks, skill, strength, ap, damage, ranged, **kw)  # type: ignore[arg-type]


def _group(row: dict[str, str], count: int, keywords: frozenset[str]) -> ModelGroup:
    invuln = _number(row["inv_sv"], 7) if row["inv_sv"].strip() not in ("", "-") else 7
    return ModelGroup(
        count=count,
        wounds=max(1, _number(row["W"], 1)),
        save=min(7, _number(row["Sv"], 7)),
        toughness=max(1, _number(row["T"], 4)),
        invuln_ranged=invuln,
        invuln_melee=invuln,
        character="CHARACTER" in keywords,
        keywords=keywords,
        points=10.0,
    )


@dataclass(frozen=True, slots=True)
class Sheet:
    """One datasheet: its model lines, weapons and option sizes."""

    models: list[dict[str, str]]
    ranged: list[Weapon]
    melee: list[Weapon]
    sizes: list[int]
    keywords: frozenset[str]

    def groups(self, size: int) -> tuple[ModelGroup, ...]:
        extra = self.models[1 : max(1, size)]
        first = _group(self.models[0], size - len(extra), self.keywords)
        return (first, *(_group(m, 1, self.keywords) for m in extra))

    def entries(self, size: int, phase: Phase) -> list[AttackEntry]:
        if phase is Phase.FIGHT:
            return [AttackEntry(size, tuple(self.melee))] if self.melee else []
        if not self.ranged:
            return []
        if size == 1:
            return [AttackEntry(1, (w,)) for w in self.ranged[:4]]
        main = [AttackEntry(size - 1, (self.ranged[0],))]
        return main + [AttackEntry(1, (w,)) for w in (self.ranged[1:3] or self.ranged[:1])]


def load_sheets() -> dict[str, Sheet]:
    models: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in _rows("Datasheets_models.csv"):
        models[row["datasheet_id"]].append(row)
    weapons: dict[str, list[Weapon]] = defaultdict(list)
    for row in _rows("Datasheets_wargear.csv"):
        weapon = _weapon(row)
        if weapon is not None:
            weapons[row["datasheet_id"]].append(weapon)
    sizes: dict[str, list[int]] = defaultdict(list)
    for row in _rows("Datasheets_models_cost.csv"):
        match = re.match(r"(\d+) models?", row["description"])
        if match:
            sizes[row["datasheet_id"]].append(int(match.group(1)))
    keywords: dict[str, set[str]] = defaultdict(set)
    for row in _rows("Datasheets_keywords.csv"):
        if row["keyword"].upper() in KEYWORDS:
            keywords[row["datasheet_id"]].add(row["keyword"].upper())
    return {
        d: Sheet(
            models[d],
            [w for w in weapons[d] if w.ranged],
            [w for w in weapons[d] if not w.ranged],
            sizes[d],
            frozenset(keywords[d]),
        )
        for d in models
        if sizes[d]
    }


@dataclass(frozen=True, slots=True)
class Option:
    """One unit option: a datasheet at one size, possibly with an attached Leader."""

    sheet: str
    size: int
    leader: str | None


def corpus_options() -> tuple[dict[str, Sheet], list[Option]]:
    """Every points option, then every Leader attached to every option of each of its Bodyguard units."""
    sheets = load_sheets()
    options = [Option(d, n, None) for d, sheet in sheets.items() for n in sheet.sizes]
    for row in _rows("Datasheets_leader.csv"):
        leader, body = row["leader_id"], row["attached_id"]
        if leader in sheets and body in sheets:
            options += [Option(body, n, leader) for n in sheets[body].sizes]
    return sheets, options


def corpus_targets(sheets: dict[str, Sheet], options: list[Option]) -> list[TargetUnit]:
    return [TargetUnit(sheets[o.sheet].groups(o.size), sheets[o.leader].groups(1) if o.leader else ()) for o in options]


def corpus_attackers(sheets: dict[str, Sheet], options: list[Option], phase: Phase) -> list[AttackSide]:
    sides = []
    for o in options:
        entries = sheets[o.sheet].entries(o.size, phase) + (sheets[o.leader].entries(1, phase) if o.leader else [])
        if not entries:  # a unit with no weapon of the phase: a side that does nothing
            entries = [AttackEntry(1, (_NOTHING[phase],))]
        sides.append(AttackSide(tuple(entries), phase, points=100.0))
    return sides


_NOTHING = {
    Phase.SHOOTING: Weapon("none", parse_dice("0"), 4, parse_dice("1"), 0, parse_dice("1"), True),
    Phase.FIGHT: Weapon("none", parse_dice("0"), 4, parse_dice("1"), 0, parse_dice("1"), False),
}
