"""The expected-damage engine: every weapon profile against every defensive profile.

Rules: `../shared/design/DAMAGE_RULES.md`, implemented in `engine.py` (Polars
expressions over distinct weapon × distinct target × scenario), checked against
hand cases, a Monte Carlo simulator and invariants in `tests/damage/`.

Entry points: `compute_damage_matrix` (in memory, all requested scenarios),
`write_damage_matrix` (streams one scenario at a time to hive Parquet
`damage_matrix/scenario=<name>/part-0.parquet`; use it for the full corpus),
`write_damage_parquet` (an in-memory matrix to the same layout), the frame
builders `weapons_frame` / `weapon_abilities_frame` / `targets_frame` /
`points_frame`, and `load_reference_profiles` / `reference_targets_frame`.

Output columns, per (weapon_id, profile_id, scenario), expectations for one model
using the weapon once: `attacks`; `hits` (incl. Sustained Hits extra hits);
`wounds` (all successful wounds incl. Lethal Hits auto-wounds and Critical
Wounds); `mortal_wounds` (Devastating Wounds mortal wounds inflicted, before
FNP); `unsaved` (failed saving throws, mortal wounds excluded); `damage` (wounds
lost after FNP, no cap); `damage_capped`; `self_mortal_wounds` (Hazardous: 3 ×
1/6 = 0.5 per use); `damage_per_100_points`; `models_slain` and `wounds_lost`
(the same attacks against a unit of `unit_size` models of the profile, exact
sequential allocation: `unit_results.py`).

Rules this package had to decide (the rules file leaves them open):
- damage_capped: each damaging attack (unsaved wound or Devastating critical
  wound) is applied to a fresh model with W wounds. Per attack the engine takes
  the exact expectation E[min(Binomial(D_eff, p_lose), W)] over the Damage dice
  distribution, where D_eff = max(1, halved D + Melta − reduction) per roll (the whole
  distribution, not the mean) and p_lose = (FNP − 1)/6: FNP is rolled per point,
  then points beyond W are lost (`dice_tables.py`; the simulator does the same
  roll by roll). Devastating Wounds mortal wounds are capped the same way ("the
  rest of that attack's mortal wounds are lost").
- damage_per_100_points = damage × 100 / cost per model, where cost per model is
  the attacker datasheet's cheapest points option (lowest cost; ties: more
  models) divided by its models. NULL when the datasheet has no points.
- Blast uses the target's `unit_size` (models in its datasheet's smallest points
  option, filled by the model_profiles producer); NULL counts as 1 model.
- A weapon with NULL skill is resolved as Torrent (it auto-hits) and counted in
  the report; Torrent wins over a skill value.
- Repeated abilities: the strongest value is used (largest mean Sustained Hits,
  Rapid Fire, Melta; lowest threshold per Anti keyword).
- Stealth is not in the record schema: the engine reads an optional boolean
  `stealth` column of the targets frame (absent = no Stealth).
- Indirect Fire needs a target that is not visible, which no published scenario
  has; the `indirect` scenario implements it (−1 to hit, unmodified 1–3 fail,
  Benefit of Cover; other ranged weapons and Torrent weapons cannot shoot).
- Benefit of Cover applies to ranged attacks only (core rules), never with
  Ignores Cover, and not to Sv 3+ or better against AP 0.
- Rows are ordered by distinct weapon profile, weapon_id, then distinct
  defensive profile, profile_id: deterministic, and equal cells are adjacent so
  Parquet compresses them. weapon_id / profile_id / scenario are Polars Enums
  with sorted categories (sorting sorts the strings; DuckDB and Parquet readers
  see VARCHAR): 4 bytes per cell instead of a string.

How it stays fast (≈ 11.5 M cells per scenario on the Wahapedia export): weapons
are deduped to distinct profiles (`profiles.py`), each scenario is folded into an
effective weapon profile so a weapon unaffected by a scenario is not recomputed
(`effective.py`), weapons without Blast or Anti are crossed with defensive
profiles deduped on the columns they read only, the engine runs on those pairs
(`engine.py`), and the results are laid out per effective weapon against every
target so that a scenario's matrix is one row copy per weapon (`expand.py`).
"""

from pipeline.damage.inputs import (
    cost_per_copy,
    points_frame,
    targets_frame,
    weapon_abilities_frame,
    weapons_frame,
)
from pipeline.damage.matrix import (
    MATRIX_COLUMNS,
    DamageComputation,
    DamageResult,
    compute_damage_matrix,
    partition_path,
    prepare_damage,
    write_damage_matrix,
    write_damage_parquet,
)
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
    "partition_path",
    "points_frame",
    "prepare_damage",
    "reference_targets_frame",
    "targets_frame",
    "weapon_abilities_frame",
    "weapons_frame",
    "write_damage_matrix",
    "write_damage_parquet",
]
