"""The unit engine (`pipeline.units`, public API) as the oracle for `models_slain` / `wounds_lost`.

One cell of the matrix is one unit matchup: an attacking side of one model with
one weapon (one step) against a target unit of `unit_size` models of one profile
(one line). These helpers translate the damage tests' records into the unit
engine's inputs.
"""

from __future__ import annotations

from typing import Any

from pipeline.units import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, compute_matchups
from pipeline.units import Weapon as UnitWeapon
from schemas.dice import parse_dice
from schemas.records import ModelProfile, Weapon
from tests.damage.builders import typed_rows

NO_ROLL = 7
_FLAGS = ("torrent", "lethal_hits", "devastating_wounds", "twin_linked", "blast", "lance", "heavy", "ignores_cover",
          "precision", "indirect_fire")  # fmt: skip


def unit_weapon(weapon: Weapon) -> UnitWeapon:
    """The weapon record as the unit engine reads it (the strongest of repeated abilities, like the engine)."""
    rows = typed_rows(weapon)
    flags: dict[str, Any] = {f: any(r["ability"] == f for r in rows) for f in _FLAGS}
    dice: dict[str, Any] = {}
    for name in ("sustained_hits", "rapid_fire", "melta"):
        values = [parse_dice(r["value"]) for r in rows if r["ability"] == name]
        dice[name] = max(values, key=lambda d: d.mean) if values else None
    anti: dict[str, int] = {}
    for r in rows:
        if r["ability"] == "anti":
            keyword, threshold = str(r["keyword"]).upper(), int(str(r["value"]).rstrip("+"))
            anti[keyword] = min(anti.get(keyword, 7), threshold)
    return UnitWeapon(
        weapon_id=weapon.weapon_id, attacks=weapon.attacks, skill=weapon.skill, strength=weapon.strength,
        ap=weapon.ap, damage=weapon.damage, ranged=weapon.kind == "ranged", anti=tuple(sorted(anti.items())),
        **flags, **dice,
    )  # fmt: skip


def unit_target(profile: ModelProfile, stealth: bool = False) -> TargetUnit:
    """`unit_size` models of the profile (NULL: 1), invulnerable saves split by attack type like the engine."""
    condition, invuln = profile.invuln_condition, profile.invuln or NO_ROLL
    ranged = invuln if condition in (None, "ranged") else NO_ROLL
    melee = profile.invuln_melee or (invuln if condition in (None, "melee") else NO_ROLL)
    assert profile.toughness is not None and profile.save is not None and profile.wounds is not None
    group = ModelGroup(
        count=profile.unit_size or 1, wounds=profile.wounds, save=profile.save, toughness=profile.toughness,
        invuln_ranged=ranged, invuln_melee=melee, fnp=profile.fnp or NO_ROLL,
        damage_reduction=profile.damage_reduction or 0, halve_damage=profile.halve_damage, stealth=stealth,
        keywords=frozenset(k.upper() for k in profile.keywords),
    )  # fmt: skip
    return TargetUnit((group,))


def oracle(
    weapon: Weapon, profile: ModelProfile, scenario: str = "default", stealth: bool = False
) -> tuple[float, float]:
    """(expected models slain, expected wounds lost) from the unit engine."""
    w = unit_weapon(weapon)
    side = AttackSide((AttackEntry(1, (w,)),), Phase.SHOOTING if w.ranged else Phase.FIGHT)
    result = compute_matchups([side], [unit_target(profile, stealth)], scenario=scenario)
    return float(result.expected_slain[0]), float(result.wounds_lost[0])
