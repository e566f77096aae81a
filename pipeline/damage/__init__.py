"""The expected-damage engine: every weapon profile against every defensive profile, per scenario.

The rules as implemented, the judgement calls, the output columns and how it stays fast: docs/damage.md.
Entry points: `prepare_damage`, `compute_damage_matrix`, `write_damage_matrix`.

Names are imported on first use (PEP 562): the unit engine needs only `scenarios` and `dice_tables`,
and `dataslate matchup` must not pay for Polars and the whole matrix code at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas.lazy import lazy_getattr

if TYPE_CHECKING:
    from pipeline.damage.inputs import cost_per_copy, points_frame, targets_frame, weapon_abilities_frame, weapons_frame
    from pipeline.damage.matrix import (
        MATRIX_COLUMNS,
        DamageComputation,
        DamageResult,
        compute_damage_matrix,
        prepare_damage,
        write_damage_matrix,
        write_damage_parquet,
    )
    from pipeline.damage.matrix_files import scenario_files
    from pipeline.damage.reference import load_reference_profiles, reference_targets_frame
    from pipeline.damage.report import DamageReport
    from pipeline.damage.scenarios import SCENARIO_DEFINITIONS, SCENARIOS, Scenario

__all__ = [
    "MATRIX_COLUMNS",
    "SCENARIOS",
    "SCENARIO_DEFINITIONS",
    "DamageComputation",
    "DamageReport",
    "DamageResult",
    "Scenario",
    "compute_damage_matrix",
    "cost_per_copy",
    "load_reference_profiles",
    "points_frame",
    "prepare_damage",
    "reference_targets_frame",
    "scenario_files",
    "targets_frame",
    "weapon_abilities_frame",
    "weapons_frame",
    "write_damage_matrix",
    "write_damage_parquet",
]

#: The submodules defining the names above, searched in this order.
_MODULES = ("inputs", "matrix", "matrix_files", "reference", "report", "scenarios")


__getattr__ = lazy_getattr(__name__, __all__, _MODULES)
