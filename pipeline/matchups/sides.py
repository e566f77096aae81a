"""Unit options as the unit engine's inputs: each golden unit option (and each attached Leader + Bodyguard
option) as a target (`TargetUnit`) and, per phase, as an attacker (`AttackSide`).

Reads plain rows (dicts) of the published golden tables, so the pipeline (from its frames) and
`dataslate matchup` (from a release's Parquet) build the same inputs. Rules: DAMAGE_RULES.md, "Unit level";
choices made here: docs/units.md#integration.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.ids import slug
from pipeline.matchups.weapons import engine_weapon, has_extra_attacks, is_pistol
from pipeline.units.model import NO_ROLL, AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon

Row = Mapping[str, Any]
#: Keywords whose models fire Pistols beside their other ranged weapons.
PISTOL_EVERYWHERE = frozenset({"MONSTER", "VEHICLE"})


@dataclass(frozen=True)
class GoldenTables:
    """The rows the inputs are built from (published columns; see docs/dataset.md)."""

    units: Sequence[Row]
    profiles: Sequence[Row]
    weapons: Sequence[Row]
    points: Sequence[Row]
    loadouts: Sequence[Row]
    leader_pairs: Sequence[tuple[str, str]] = ()
    stealth: frozenset[str] = frozenset()
    unit_keywords: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitOption:
    """One option of a unit (or attached unit): what it is as a target and as an attacker per phase."""

    unit_id: str
    name: str
    faction: str
    models: int
    cost: float
    target: TargetUnit | None
    sides: Mapping[Phase, AttackSide]

    @property
    def faction_slug(self) -> str:
        return slug(self.faction)


def _group(profile: Row, count: int, cost_per_model: float, keywords: frozenset[str], stealth: bool) -> ModelGroup:
    invuln = profile.get("invuln") or NO_ROLL
    condition = profile.get("invuln_condition")
    ranged = invuln if condition in (None, "ranged") else NO_ROLL
    melee = profile.get("invuln_melee") or (invuln if condition in (None, "melee") else NO_ROLL)
    own = frozenset(str(k).upper() for k in profile.get("keywords") or ())
    return ModelGroup(
        count=count,
        wounds=int(profile["wounds"]),
        save=int(profile["save"]),
        toughness=int(profile["toughness"]),
        invuln_ranged=int(ranged),
        invuln_melee=int(min(melee, ranged) if condition is None else melee),
        fnp=int(profile.get("fnp") or NO_ROLL),
        damage_reduction=int(profile.get("damage_reduction") or 0),
        halve_damage=bool(profile.get("halve_damage")),
        character="CHARACTER" in own | keywords,
        stealth=stealth,
        keywords=own | keywords,
        points=cost_per_model,
    )


def _has_stats(profile: Row | None) -> bool:
    return profile is not None and all(profile.get(k) is not None for k in ("toughness", "save", "wounds"))


class _Builder:
    """Indexes the golden rows once; builds options per unit."""

    def __init__(self, tables: GoldenTables) -> None:
        self.tables = tables
        self.units = {str(u["unit_id"]): u for u in tables.units}
        self.profiles: dict[str, dict[str, Row]] = defaultdict(dict)
        for p in tables.profiles:
            self.profiles[str(p["unit_id"])][str(p["profile_name"])] = p
        self.weapons: dict[str, Row] = {f"{w['unit_id']}|{w['weapon_id']}": w for w in tables.weapons}
        self.engine_weapons: dict[str, Weapon] = {}
        self.points: dict[str, list[Row]] = defaultdict(list)
        for p in tables.points:
            self.points[str(p["unit_id"])].append(p)
        self.loadouts: dict[tuple[str, int], dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
        for r in tables.loadouts:
            self.loadouts[(str(r["unit_id"]), int(r["models"]))][str(r["option"])].append(r)

    def weapon(self, unit_id: str, weapon_id: str) -> tuple[Row, Weapon]:
        row = self.weapons[f"{unit_id}|{weapon_id}"]
        if weapon_id not in self.engine_weapons:
            self.engine_weapons[weapon_id] = engine_weapon(row)
        return row, self.engine_weapons[weapon_id]

    def option_rows(self, unit_id: str, points: Row) -> list[Row]:
        """The loadout rows of one golden option: the option described like the golden cost, else the first."""
        options = self.loadouts.get((unit_id, int(points["models"])), {})
        if not options:
            return []
        chosen = points.get("description") if points.get("description") in options else sorted(options)[0]
        return options[str(chosen)]

    def composition(self, unit_id: str, points: Row, rows: Sequence[Row]) -> dict[str, int] | None:
        """Profile name -> models: from the loadout, else the golden composition, else a one-profile unit."""
        if rows:
            counts: dict[str, int] = defaultdict(int)
            # each group once, in row order: a set's order follows the hash seed, and the engine sums in this order
            for group in dict.fromkeys(
                (str(r["model_group"]), str(r["profile_name"]), int(r["model_count"])) for r in rows
            ):
                counts[group[1]] += group[2]
            return dict(counts)
        composition = points.get("composition")
        if isinstance(composition, str):  # JSON text in frames and Parquet
            composition = json.loads(composition)
        if isinstance(composition, Mapping) and composition:
            return {str(k): int(v) for k, v in composition.items() if int(v) > 0}
        profiles = self.profiles.get(unit_id, {})
        if len(profiles) == 1:
            return {next(iter(profiles)): int(points["models"])}
        return None

    def target(self, unit_id: str, points: Row, rows: Sequence[Row]) -> tuple[ModelGroup, ...] | None:
        composition = self.composition(unit_id, points, rows)
        profiles = self.profiles.get(unit_id, {})
        if not composition or not all(_has_stats(profiles.get(name)) for name in composition):
            return None
        per_model = float(points["cost"]) / max(1, int(points["models"]))
        keywords = self.tables.unit_keywords.get(unit_id, frozenset())
        stealth = unit_id in self.tables.stealth
        groups = [_group(profiles[n], c, per_model, keywords, stealth) for n, c in composition.items()]
        return _allocation_order(groups)

    def entries(self, unit_id: str, rows: Sequence[Row], phase: Phase) -> list[AttackEntry]:
        """Who attacks with what (DAMAGE_RULES.md, "Unit level")."""
        by_group: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            by_group[str(r["model_group"])].append(r)
        entries: list[AttackEntry] = []
        for name in sorted(by_group):
            entries.extend(self._group_entries(unit_id, by_group[name], phase))
        return entries

    def _group_entries(self, unit_id: str, rows: Sequence[Row], phase: Phase) -> list[AttackEntry]:
        count = int(rows[0]["model_count"])
        kind = "ranged" if phase is Phase.SHOOTING else "melee"
        carried: dict[str, list[tuple[Row, Weapon, int]]] = defaultdict(list)
        for r in rows:
            row, weapon = self.weapon(unit_id, str(r["weapon_id"]))
            if row["kind"] == kind:
                carried[str(r["profile_group"])].append((row, weapon, int(r["per_model"])))
        if not carried:
            return []
        if phase is Phase.SHOOTING:
            return self._shooting(unit_id, rows[0], count, carried)
        return _fight(count, carried)

    def _shooting(
        self, unit_id: str, first: Row, count: int, carried: Mapping[str, list[tuple[Row, Weapon, int]]]
    ) -> list[AttackEntry]:
        pistols = {g for g, profiles in carried.items() if all(is_pistol(row) for row, _, _ in profiles)}
        profile = self.profiles.get(unit_id, {}).get(str(first["profile_name"]), {})
        keywords = {str(k).upper() for k in profile.get("keywords") or ()} | self.tables.unit_keywords.get(
            unit_id, frozenset()
        )
        fires_all = bool(keywords & PISTOL_EVERYWHERE) or len(pistols) == len(carried)
        return [
            AttackEntry(count * max(p for _, _, p in profiles), tuple(w for _, w, _ in profiles))
            for g, profiles in sorted(carried.items())
            if fires_all or g not in pistols
        ]


def _fight(count: int, carried: Mapping[str, list[tuple[Row, Weapon, int]]]) -> list[AttackEntry]:
    """One melee weapon per model (the best against the target, a choice), plus every Extra Attacks weapon."""
    extra = {g for g, profiles in carried.items() if any(has_extra_attacks(row) for row, _, _ in profiles)}
    entries = [
        AttackEntry(count * max(p for _, _, p in carried[g]), tuple(w for _, w, _ in carried[g])) for g in sorted(extra)
    ]
    main = tuple(w for g, profiles in sorted(carried.items()) if g not in extra for _, w, _ in profiles)
    return ([AttackEntry(count, main)] if main else []) + entries


def _allocation_order(groups: Iterable[ModelGroup]) -> tuple[ModelGroup, ...]:
    """Non-CHARACTER models first, then the most numerous (DAMAGE_RULES.md; stable)."""
    return tuple(sorted(groups, key=lambda g: (g.character, -g.count)))


def _option(builder: _Builder, unit: Row, points: Row) -> UnitOption:
    unit_id = str(unit["unit_id"])
    rows = builder.option_rows(unit_id, points)
    groups = builder.target(unit_id, points, rows)
    cost = float(points["cost"])
    sides = {}
    for phase in Phase:
        entries = builder.entries(unit_id, rows, phase)
        if entries:
            sides[phase] = AttackSide(tuple(entries), phase, points=cost, name=unit_id)
    target = TargetUnit(groups, name=unit_id) if groups else None
    return UnitOption(unit_id, str(unit["name"]), str(unit["faction"]), int(points["models"]), cost, target, sides)


def attached(leader: UnitOption, body: UnitOption) -> UnitOption:
    """The Leader attached to the Bodyguard: one unit (Bodyguard's Toughness, Leader allocated last)."""
    target = None
    if leader.target is not None and body.target is not None:
        target = TargetUnit(body.target.groups, leader.target.all_groups, name=f"{leader.unit_id}+{body.unit_id}")
    sides = {}
    for phase in Phase:
        entries = tuple(body.sides[phase].entries if phase in body.sides else ()) + tuple(
            leader.sides[phase].entries if phase in leader.sides else ()
        )
        if entries:
            sides[phase] = AttackSide(entries, phase, points=leader.cost + body.cost)
    return UnitOption(
        unit_id=f"{leader.unit_id}+{body.unit_id}",
        name=f"{leader.name} + {body.name}",
        faction=body.faction,
        models=leader.models + body.models,
        cost=leader.cost + body.cost,
        target=target,
        sides=sides,
    )


def unit_options(tables: GoldenTables, units: Iterable[str] | None = None) -> list[UnitOption]:
    """Every option of every unit (or of `units`), then every Leader (smallest option) attached to every
    option of each unit it can lead (both units among those built)."""
    builder = _Builder(tables)
    wanted = set(units) if units is not None else None
    options: dict[str, list[UnitOption]] = {}
    for unit_id, unit in sorted(builder.units.items()):
        if wanted is not None and unit_id not in wanted and not any(unit_id in w.split("+") for w in wanted):
            continue
        points = sorted(builder.points.get(unit_id, []), key=lambda p: int(p["models"]))
        options[unit_id] = [_option(builder, unit, p) for p in points]
    result = [o for unit_id in sorted(options) for o in options[unit_id]]
    for leader_id, body_id in sorted(set(tables.leader_pairs)):
        if wanted is not None and f"{leader_id}+{body_id}" not in wanted:
            continue
        leaders, bodies = options.get(leader_id), options.get(body_id)
        if leaders and bodies:
            result.extend(attached(leaders[0], body) for body in bodies)
    return result
