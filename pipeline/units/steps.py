"""Which weapon profiles attack, and in which order.

The weapons of the phase (ranged when shooting, melee when fighting) are grouped
by profile (the same profile resolves once, its uses added up) and ordered by
descending mean Damage, then more negative AP, then weapon_id (the smallest id
among the merged ones).
"""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.units.model import Phase, Weapon

StepKey = tuple[Weapon, int]
"""(weapon profile without id, number of uses)."""


def in_phase(weapon: Weapon, phase: Phase) -> bool:
    return weapon.ranged == (phase is Phase.SHOOTING)


def ordered_steps(phase: Phase, uses: Iterable[tuple[int, Weapon]]) -> tuple[StepKey, ...]:
    """(uses, weapon) pairs -> merged, ordered steps of the phase."""
    total: dict[Weapon, int] = {}
    first_id: dict[Weapon, str] = {}
    for models, weapon in uses:
        if not in_phase(weapon, phase):
            continue
        profile = weapon.profile()
        total[profile] = total.get(profile, 0) + models
        first_id[profile] = min(first_id.get(profile, weapon.weapon_id), weapon.weapon_id)
    order = sorted(total, key=lambda p: (-p.damage.mean, p.ap, first_id[p]))
    return tuple((p, total[p]) for p in order)
