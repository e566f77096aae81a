"""Unit against unit: exact distributions of models slain (DAMAGE_RULES.md, "Unit level").

Inputs (`model.py`): a `TargetUnit` (model groups in allocation order, an
attached Leader) and an `AttackSide` (weapon entries of one phase). Entry point:
`compute_matchups` (many pairs, deduped and batched). Design, state space,
judgement calls and throughput: `docs/units.md`.
"""

from pipeline.units.engine import UnitEngine, compute_matchups
from pipeline.units.model import NO_ROLL, AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from pipeline.units.results import Matchups

__all__ = [
    "NO_ROLL",
    "AttackEntry",
    "AttackSide",
    "Matchups",
    "ModelGroup",
    "Phase",
    "TargetUnit",
    "UnitEngine",
    "Weapon",
    "compute_matchups",
]
