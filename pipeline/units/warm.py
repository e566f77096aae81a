"""The compiled loops loaded before the matchup processes fork (docs/units.md#compiled-loops-loaded-once).

Each forked process that meets the loops first imports Numba and loads their machine code from its cache
(≈ 0.5 s of CPU); loaded once in the parent, every process forked after it inherits them.
"""

from __future__ import annotations

from pipeline.units import loops
from pipeline.units.engine import compute_matchups
from pipeline.units.model import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from schemas.dice import parse_dice


def warm_loops() -> None:
    """A tiny grid through the engine with the compiled loops (one and two lines, a family, Devastating Wounds,
    Precision): each loop is loaded for the argument types the engine gives it (one set:
    tests/units/test_loops.py), as a chain without operators and with them."""
    if not loops.ENABLED:
        return
    gun = Weapon("warm-gun", parse_dice("D6"), 3, parse_dice("5"), -1, parse_dice("2"), devastating_wounds=True,
                 precision=True)  # fmt: skip
    las = Weapon("warm-las", parse_dice("1"), 3, parse_dice("4"), 0, parse_dice("D6"))
    attackers = [AttackSide((AttackEntry(n, (w,)),), Phase.SHOOTING) for n, w in ((5, gun), (1, las))]
    body = (ModelGroup(count=5, wounds=2, save=3, toughness=4),)
    leader = (ModelGroup(count=1, wounds=5, save=3, toughness=4, character=True),)
    ten = (ModelGroup(count=10, wounds=2, save=3, toughness=4),)
    targets = [TargetUnit(body, leader), TargetUnit(body), TargetUnit(ten)]
    for operators in (False, True):
        compute_matchups(attackers, targets, operators=operators)
