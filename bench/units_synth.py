"""Synthetic unit options shaped like the Wahapedia export (bench only; fixed seed).

Unit sizes, Wounds, saves and invulnerable saves follow the export's
frequencies (1-model units 58 %, 5 / 10 / 20-model squads, W1-3 troops, W4-24
characters, monsters and vehicles); about a third of squads carry an attached
Leader; weapons are drawn from a pool of typical profiles (bolt rifles,
lasguns, heavy bolters, lascannons, melta guns, flamers, plasma, power fists,
choppas, ...) with their abilities, so attack sides repeat the way real
loadouts do (sergeant + squad weapon + special weapon).
"""

from __future__ import annotations

import random

from pipeline.units import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from schemas.dice import parse_dice


def _w(wid: str, a: str, skill: int | None, s: str, ap: int, d: str, ranged: bool = True, **kw: object) -> Weapon:
    for name in ("sustained_hits", "melta", "rapid_fire"):
        if name in kw:
            kw[name] = parse_dice(str(kw[name]))
    return Weapon(wid, parse_dice(a), skill, parse_dice(s), ap, parse_dice(d), ranged, **kw)  # type: ignore[arg-type]


RANGED: list[Weapon] = [
    _w("bolt_rifle", "2", 3, "4", -1, "1"),
    _w("boltgun", "2", 3, "4", 0, "1", rapid_fire="1"),
    _w("lasgun", "1", 4, "3", 0, "1", rapid_fire="1"),
    _w("shoota", "2", 5, "4", 0, "1"),
    _w("heavy_bolter", "3", 4, "5", -1, "2", sustained_hits="1", heavy=True),
    _w("lascannon", "1", 4, "12", -3, "D6+1", heavy=True),
    _w("meltagun", "1", 3, "9", -4, "D6", melta="2"),
    _w("flamer", "D6", None, "4", 0, "1", torrent=True, ignores_cover=True),
    _w("plasma", "1", 3, "8", -3, "2"),
    _w("frag", "D6", 3, "4", 0, "1", blast=True),
    _w("storm_bolter", "2", 3, "4", 0, "1", rapid_fire="2"),
    _w("sniper", "1", 3, "5", -2, "3", precision=True, heavy=True, devastating_wounds=True),
    _w("assault_cannon", "6", 3, "6", 0, "1", devastating_wounds=True),
    _w("battle_cannon", "D6+3", 4, "10", -1, "3", blast=True),
    _w("zzap", "1", 5, "2D6", -3, "5"),
    _w("gauss", "2", 3, "4", 0, "1", lethal_hits=True),
    _w("twin_lascannon", "1", 3, "12", -3, "D6+1", twin_linked=True),
    _w("rad_carbine", "3", 3, "4", 0, "1", anti=(("INFANTRY", 4),), devastating_wounds=True),
    _w("pistol", "1", 3, "4", 0, "1"),
    _w("shuriken", "2", 3, "4", -1, "1", lethal_hits=True),
]
MELEE: list[Weapon] = [
    _w("ccw", "3", 3, "4", 0, "1", False),
    _w("choppa", "3", 3, "4", -1, "1", False),
    _w("power_fist", "3", 4, "8", -2, "2", False),
    _w("power_sword", "4", 3, "5", -2, "1", False),
    _w("thunder_hammer", "3", 4, "8", -2, "2", False, devastating_wounds=True),
    _w("claws", "6", 3, "5", -1, "1", False, twin_linked=True),
    _w("monster_jaws", "5", 3, "10", -2, "3", False),
    _w("lance", "4", 3, "6", -1, "2", False, lance=True),
    _w("relic_blade", "5", 2, "5", -2, "2", False, precision=True),
    _w("talons", "4", 2, "6", -2, "2", False, sustained_hits="1"),
    _w("tank_shock", "6", 4, "7", 0, "1", False),
]

SIZES = {1: 58, 2: 4, 3: 7, 5: 9, 6: 5, 10: 11, 20: 2}
TROOP_WOUNDS = {1: 45, 2: 35, 3: 20}
BIG_WOUNDS = {4: 20, 5: 15, 6: 12, 8: 6, 10: 10, 12: 10, 14: 8, 16: 5, 18: 6, 22: 3, 24: 4, 30: 1}
SAVES = {2: 20, 3: 35, 4: 25, 5: 12, 6: 8}


def _pick(rng: random.Random, table: dict[int, int]) -> int:
    return rng.choices(list(table), weights=list(table.values()))[0]


def _profile(rng: random.Random, count: int, wounds: int) -> ModelGroup:
    invuln = rng.choice([7, 7, 7, 4, 5, 6])
    return ModelGroup(
        count=count,
        wounds=wounds,
        save=_pick(rng, SAVES),
        toughness=rng.choice([3, 4, 4, 5, 6]) if wounds < 4 else rng.choice([5, 6, 9, 10, 11, 12]),
        invuln_ranged=invuln,
        invuln_melee=invuln if rng.random() < 0.9 else max(2, invuln - 1),
        fnp=rng.choice([7, 7, 7, 7, 6, 5]),
        damage_reduction=1 if wounds >= 8 and rng.random() < 0.25 else 0,
        halve_damage=wounds >= 10 and rng.random() < 0.03,
        keywords=frozenset({"INFANTRY"} if wounds < 4 else {"VEHICLE"}),
        points=float(rng.choice([10, 15, 20, 25, 40])) * max(1, wounds // 3),
    )


def target_options(n: int, seed: int = 7) -> list[TargetUnit]:
    """`n` target unit options; squads may have an attached Leader."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        size = _pick(rng, SIZES)
        wounds = _pick(rng, BIG_WOUNDS) if size <= 2 else _pick(rng, TROOP_WOUNDS)
        body = (_profile(rng, size, wounds),)
        leader = (_profile(rng, 1, rng.choice([4, 5, 6])),) if size >= 3 and rng.random() < 0.35 else ()
        out.append(TargetUnit(body, leader))
    return out


def attack_sides(n: int, phase: Phase, seed: int = 11) -> list[AttackSide]:
    """`n` attacker options: a squad weapon, a sergeant's weapon, sometimes a special or heavy weapon."""
    rng = random.Random(seed)
    pool = RANGED if phase is Phase.SHOOTING else MELEE
    out = []
    for _ in range(n):
        size = _pick(rng, SIZES)
        main = rng.choice(pool)
        entries = [AttackEntry(max(1, size - 1), (main,))]
        if size > 1:
            entries.append(AttackEntry(1, (rng.choice(pool),)))
        if size >= 5 and rng.random() < 0.5:
            entries.append(AttackEntry(1, (rng.choice(pool),)))
        if size == 1 and rng.random() < 0.4:
            entries.append(AttackEntry(rng.choice([1, 2]), (rng.choice(pool),)))
        out.append(AttackSide(tuple(entries), phase, points=float(rng.choice([50, 80, 100, 150, 200, 300]))))
    return out
