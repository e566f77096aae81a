"""Small builders for unit-engine tests: text dice, defaults a player would recognise."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeline.units import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon, compute_matchups
from pipeline.units.results import Matchups
from schemas.dice import parse_dice

_DICE_FIELDS = ("attacks", "strength", "damage", "sustained_hits", "melta", "rapid_fire")


def weapon(weapon_id: str = "w", **stats: Any) -> Weapon:
    """A Weapon; defaults: ranged A1 BS3+ S4 AP0 D1. Dice fields take text ("D6", "2D6")."""
    base: dict[str, Any] = dict(attacks="1", skill=3, strength="4", ap=0, damage="1")
    base.update(stats)
    for name in _DICE_FIELDS:
        if base.get(name) is not None:
            base[name] = parse_dice(str(base[name]))
    return Weapon(weapon_id=weapon_id, **base)


def group(count: int = 1, **stats: Any) -> ModelGroup:
    """A ModelGroup; defaults: W2 Sv3+ T4 (a MEQ)."""
    base: dict[str, Any] = dict(wounds=2, save=3, toughness=4)
    base.update(stats)
    return ModelGroup(count=count, **base)


def side(*uses: tuple[int, Weapon], phase: Phase | None = None, points: float = 0.0) -> AttackSide:
    """An attack side from (uses, weapon) pairs; the phase follows the first weapon."""
    chosen = phase or (Phase.SHOOTING if uses[0][1].ranged else Phase.FIGHT)
    return AttackSide(tuple(AttackEntry(n, (w,)) for n, w in uses), chosen, points)


def one(attacker: AttackSide, target: TargetUnit, scenario: str = "default") -> Matchups:
    return compute_matchups([attacker], [target], scenario=scenario)


def dist(attacker: AttackSide, target: TargetUnit, scenario: str = "default") -> np.ndarray:
    """P(k models slain) of one pair."""
    return one(attacker, target, scenario).slain_dist[0]
