"""Whether a scenario changes anything the engine computes for a weapon, so that rows it leaves alone are
computed once, in the base scenario, and copied (docs/units.md#scenarios-computed-once).

The engine reads the scenario in these places only, and `changes` says yes to every weapon any of them treats
differently from the base scenario (every flag off, the target visible): `counts.can_attack` and
`counts.unseen` (a ranged weapon and a target out of sight), `counts.hit_chances` (Heavy when stationary),
`counts.wound_roll` and `counts.count_key` (Lance when charged), `counts.attacks_per_model` and
`count_cache.SharedCounts.wound_counts` (Rapid Fire at half range), `losses.damage_after_modifiers` and
`losses.damage_key` (Melta at half range), `losses.save_fails` and `losses.save_fail_table` (cover for a ranged
weapon without Ignores Cover). A read added there must be added here: `tests/units/test_scenario_reads.py`
checks, on random weapons, that a weapon this calls unchanged gets the base scenario's bits.
"""

from __future__ import annotations

from pipeline.damage.scenarios import Scenario
from pipeline.units.model import AttackSide, Weapon


def is_base(scenario: Scenario) -> bool:
    """Every flag off and the target visible: the scenario the others are compared with."""
    flags = (scenario.half_range, scenario.charged, scenario.stationary, scenario.cover)
    return not any(flags) and scenario.target_visible


def changes(weapon: Weapon, scenario: Scenario) -> bool:
    """Whether `scenario` may change this weapon's numbers against some target (over-cautious: cover is
    counted whatever the target's save and the weapon's AP)."""
    return bool(
        (weapon.ranged and not scenario.target_visible)
        or (scenario.half_range and (weapon.rapid_fire is not None or weapon.melta is not None))
        or (scenario.charged and weapon.lance)
        or (scenario.stationary and weapon.heavy)
        or (scenario.cover and weapon.ranged and not weapon.ignores_cover)
    )


def side_changes(side: AttackSide, scenario: Scenario) -> bool:
    """Whether `scenario` may change any weapon (any choice) of the side."""
    return any(changes(weapon, scenario) for entry in side.entries for weapon in entry.choices)
