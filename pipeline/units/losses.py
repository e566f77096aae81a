"""What one wound does to the model it is allocated to: the pmf of wounds lost, before the model's cap.

Normal wounds face the best applicable save; devastating wounds skip every save
and inflict mortal wounds equal to the Damage after modifiers. Damage modifiers
apply in the rules' order: halve (round up), add Melta, subtract damage reduction
(minimum 1); then Feel No Pain is rolled for each point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb

import numpy as np

from pipeline.damage.scenarios import Scenario
from pipeline.units.counts import FloatArray, dice_pmf, unseen
from pipeline.units.model import ModelGroup, Phase, Weapon


def damage_after_modifiers(weapon: Weapon, group: ModelGroup, scenario: Scenario) -> FloatArray:
    """P(Damage = d) after halving, Melta (half range) and damage reduction."""
    pmf = dice_pmf(weapon.damage)
    if group.halve_damage:
        pmf = _remap(pmf, lambda d: (d + 1) // 2)
    if weapon.melta and scenario.half_range:
        pmf = np.convolve(pmf, dice_pmf(weapon.melta))
    if group.damage_reduction:
        pmf = _remap(pmf, lambda d: max(1, d - group.damage_reduction))
    return pmf


def _remap(pmf: FloatArray, rule: Callable[[int], int]) -> FloatArray:
    out = np.zeros(len(pmf))
    for d, p in enumerate(pmf):
        out[rule(d) if d else 0] += p
    return out


def feel_no_pain(pmf: FloatArray, fnp: int) -> FloatArray:
    """Wounds lost when each point is ignored on a D6 of `fnp`+ (binomial thinning)."""
    lose = min(max(fnp - 1, 0), 6) / 6.0
    if lose == 1.0:
        return pmf
    out = np.zeros(len(pmf))
    for d, p in enumerate(pmf):
        for k in range(d + 1):
            out[k] += p * comb(d, k) * lose**k * (1 - lose) ** (d - k)
    return out


def save_fails(weapon: Weapon, group: ModelGroup, phase: Phase, scenario: Scenario) -> float:
    """P(the saving throw fails): the better of armour (AP, cover) and the phase's invulnerable save."""
    cover = (
        (scenario.cover or unseen(weapon, scenario))
        and weapon.ranged
        and not weapon.ignores_cover
        and not (group.save <= 3 and weapon.ap == 0)
    )
    armour = min(max(group.save - weapon.ap - int(cover), 2), 7)
    need = min(armour, max(group.invuln(phase), 2))
    return (need - 1) / 6.0


def damage_key(weapon: Weapon, scenario: Scenario) -> tuple[object, ...]:
    """What `damage_after_modifiers` reads from the weapon."""
    melta = weapon.melta if scenario.half_range else None
    return (weapon.damage.n, weapon.damage.sides, weapon.damage.plus, melta)


def group_damage_key(group: ModelGroup) -> tuple[int, bool, int]:
    """What `damage_after_modifiers` and Feel No Pain read from the model."""
    return (group.damage_reduction, group.halve_damage, group.fnp)


def save_fail_table(
    weapons: Sequence[Weapon], groups: Sequence[ModelGroup], phase: Phase, scenario: Scenario
) -> FloatArray:
    """`save_fails` for every (weapon, group) at once [W, G], same arithmetic."""
    ap = np.array([w.ap for w in weapons], dtype=np.int64)[:, None]
    can_cover = np.array(
        [(scenario.cover or unseen(w, scenario)) and w.ranged and not w.ignores_cover for w in weapons]
    )[:, None]
    save = np.array([g.save for g in groups], dtype=np.int64)[None, :]
    invuln = np.array([max(g.invuln(phase), 2) for g in groups], dtype=np.int64)[None, :]
    cover = can_cover & ~((save <= 3) & (ap == 0))
    armour = np.clip(save - ap - cover.astype(np.int64), 2, 7)
    fails: FloatArray = (np.minimum(armour, invuln) - 1) / 6.0
    return fails


def wound_losses(weapon: Weapon, group: ModelGroup, phase: Phase, scenario: Scenario) -> tuple[FloatArray, FloatArray]:
    """(normal wound, devastating wound) -> pmf of wounds lost, uncapped."""
    lost = feel_no_pain(damage_after_modifiers(weapon, group, scenario), group.fnp)
    fails = save_fails(weapon, group, phase, scenario)
    normal = fails * lost
    normal[0] += 1 - fails
    return normal, lost
