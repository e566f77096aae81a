"""Properties every cell must have, over generated weapons, targets and scenarios (hypothesis)."""

from __future__ import annotations

import itertools
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.damage.engine import OUTPUTS
from pipeline.damage.scenarios import SCENARIO_DEFINITIONS, SCENARIOS
from pipeline.damage.unit_results import UNIT_OUTPUTS
from tests.damage.builders import run, target, weapon

ABILITIES = [
    "torrent", "blast", "lethal hits", "devastating wounds", "twin-linked", "heavy", "lance", "ignores cover",
    "indirect fire", "hazardous", "sustained hits 1", "sustained hits d3", "rapid fire 1", "melta 2",
    "melta d3", "anti-infantry 4+", "anti-vehicle 2+", "assault",
]  # fmt: skip
TWIN_LINKED_DEVASTATING = {"twin-linked", "devastating wounds"}
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

weapon_specs = st.fixed_dictionaries({
    "kind": st.sampled_from(["ranged", "melee"]),
    "attacks": st.sampled_from(["1", "2", "5", "D3", "D6", "2D6", "D6+3"]),
    "skill": st.integers(2, 6),
    "strength": st.integers(1, 24),
    "ap": st.integers(-6, 0),
    "damage": st.sampled_from(["1", "2", "3", "D3", "D6", "D6+1", "2D6", "D3+3"]),
    "abilities": st.lists(st.sampled_from(ABILITIES), max_size=4, unique=True),
})  # fmt: skip

target_specs = st.fixed_dictionaries({
    "toughness": st.integers(1, 14),
    "save": st.integers(2, 7),
    "wounds": st.integers(1, 24),
    "invuln": st.one_of(st.none(), st.integers(2, 6)),
    "fnp": st.one_of(st.none(), st.integers(4, 6)),
    "damage_reduction": st.one_of(st.none(), st.just(1)),
    "keywords": st.lists(st.sampled_from(["INFANTRY", "VEHICLE", "MONSTER"]), max_size=2, unique=True),
    "unit_size": st.integers(1, 20),
    "halve_damage": st.booleans(),
})  # fmt: skip

scenarios = st.sampled_from(list(SCENARIO_DEFINITIONS))


def _weapon(spec: dict[str, Any], weapon_id: str = "w", **override: Any) -> Any:
    merged = {**spec, **override}
    if "torrent" in merged["abilities"]:
        merged["skill"] = None
    return weapon(weapon_id, **merged)


def _by_weapon(matrix: pl.DataFrame, column: str) -> list[float]:
    return matrix.sort("weapon_id")[column].to_list()


def _non_decreasing(values: list[float]) -> bool:
    return all(b >= a - 1e-9 for a, b in itertools.pairwise(values))


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_more_ap_never_lowers_damage(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    weapons = [_weapon(w, f"ap{-ap}", ap=ap) for ap in range(0, -7, -1)]
    matrix = run(weapons, [target(**t)], [scenario])
    for column in ("unsaved", "damage", "damage_capped"):
        assert _non_decreasing(_by_weapon(matrix, column)), column


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_more_strength_never_lowers_wounds(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    weapons = [_weapon(w, f"s{s:02d}", strength=s) for s in range(1, 25)]
    matrix = run(weapons, [target(**t)], [scenario])
    assert _non_decreasing(_by_weapon(matrix, "wounds"))
    if not set(w["abilities"]) >= TWIN_LINKED_DEVASTATING:
        assert _non_decreasing(_by_weapon(matrix, "damage"))


def test_twin_linked_devastating_wounds_can_do_more_damage_at_lower_strength() -> None:
    """Why the invariant above exempts this pair: Twin-linked re-rolls only FAILED wound rolls, so a
    weaker weapon re-rolls more dice and scores more Critical Wounds; against a 2+ save those
    mortal wounds outweigh its fewer normal wounds (S1 vs T1: crits 1/6 + 3/6 x 1/6 = 9/36 per hit;
    S2: 1/6 + 1/6 x 1/6 = 7/36)."""
    spec = {"kind": "ranged", "attacks": "6", "skill": 2, "strength": 1, "ap": 0, "damage": "3",
            "abilities": ["twin-linked", "devastating wounds"]}  # fmt: skip
    weapons = [_weapon(spec, "s1", strength=1), _weapon(spec, "s2", strength=2)]
    matrix = run(weapons, [target(toughness=1, save=2, wounds=10)], ["default"])
    weak, strong = _by_weapon(matrix, "damage")
    assert _by_weapon(matrix, "wounds")[0] < _by_weapon(matrix, "wounds")[1]
    assert weak > strong


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_better_skill_never_lowers_hits(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    weapons = [_weapon(w, f"bs{7 - s}", skill=s) for s in range(2, 7)]  # bs5 (2+) ... bs1 (6+)
    matrix = run(weapons, [target(**t)], [scenario])
    assert _non_decreasing(_by_weapon(matrix, "hits"))


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_outputs_are_bounded(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    row = run([_weapon(w)], [target(**t)], [scenario]).row(0, named=True)
    assert all(row[c] >= 0 for c in ("attacks", "hits", "wounds", "mortal_wounds", "unsaved", "damage"))
    assert row["damage_capped"] <= row["damage"] + 1e-9
    assert row["unsaved"] <= row["wounds"] + 1e-9
    assert row["wounds"] <= row["hits"] + 1e-9
    damaged_attacks = row["unsaved"] + row["mortal_wounds"]  # mortal wounds >= attacks that caused them
    assert row["damage_capped"] <= damaged_attacks * t["wounds"] + 1e-9


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_unit_outputs_are_bounded(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    """A unit loses at most what it has; a slain model lost all its wounds; allocation never adds damage."""
    row = run([_weapon(w)], [target(**t)], [scenario]).row(0, named=True)
    models, wounds = t["unit_size"], t["wounds"]
    assert 0 <= row["models_slain"] <= models + 1e-9
    assert 0 <= row["wounds_lost"] <= models * wounds + 1e-9
    assert row["models_slain"] * wounds <= row["wounds_lost"] + 1e-9
    # each damaging attack loses at most min(its damage, the model's remaining wounds) <= min(damage, W)
    assert row["wounds_lost"] <= row["damage_capped"] + 1e-9
    if wounds == 1:
        assert row["models_slain"] == pytest.approx(row["wounds_lost"], rel=1e-9, abs=1e-12)


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_a_larger_unit_never_loses_fewer_models_or_wounds(w: dict[str, Any], t: dict[str, Any], scenario: str) -> None:
    targets = [target(f"n{n:02d}", **{**t, "unit_size": n}) for n in range(1, 21)]
    matrix = run([_weapon(w)], targets, [scenario]).sort("profile_id")
    for column in UNIT_OUTPUTS:
        assert _non_decreasing(matrix[column].to_list()), column


@SETTINGS
@given(weapon_specs, target_specs, scenarios)
def test_a_unit_that_cannot_run_out_of_models_loses_damage_capped(
    w: dict[str, Any], t: dict[str, Any], scenario: str
) -> None:
    """W1 models, more of them than wounds the weapon can score (no Blast: at most 12 attacks x 4 hits):
    every damaging attack slays one model, exactly as damage_capped counts it."""
    spec = {**w, "abilities": [a for a in w["abilities"] if a != "blast"]}
    row = run([_weapon(spec)], [target(**{**t, "wounds": 1, "unit_size": 100})], [scenario]).row(0, named=True)
    assert row["wounds_lost"] == pytest.approx(row["damage_capped"], rel=1e-9, abs=1e-12)
    assert row["models_slain"] == pytest.approx(row["damage_capped"], rel=1e-9, abs=1e-12)


@SETTINGS
@given(weapon_specs, target_specs)
def test_two_plus_invulnerable_save_bounds_unsaved(w: dict[str, Any], t: dict[str, Any]) -> None:
    """With a 2++ at most 1 in 6 saving throws fail, whatever the AP and scenario."""
    matrix = run([_weapon(w)], [target(**{**t, "invuln": 2})], list(SCENARIOS))
    for row in matrix.iter_rows(named=True):
        assert row["unsaved"] <= row["wounds"] / 6 + 1e-9


@SETTINGS
@given(weapon_specs, target_specs)
def test_scenarios_only_help_or_hurt_in_their_direction(w: dict[str, Any], t: dict[str, Any]) -> None:
    matrix = run([_weapon(w)], [target(**t)], list(SCENARIOS))
    damage = dict(zip(matrix["scenario"].cast(pl.String).to_list(), matrix["damage"].to_list(), strict=True))
    for helped in ("half_range", "charged", "stationary"):
        assert damage[helped] >= damage["default"] - 1e-9, helped
    assert damage["cover"] <= damage["default"] + 1e-9


@SETTINGS
@given(weapon_specs, target_specs, scenarios, st.integers(2, 6))
def test_feel_no_pain_never_raises_damage(w: dict[str, Any], t: dict[str, Any], scenario: str, fnp: int) -> None:
    targets = [target("a", **{**t, "fnp": None}), target("b", **{**t, "fnp": fnp})]
    matrix = run([_weapon(w)], targets, [scenario]).sort("profile_id")
    without, with_fnp = matrix.iter_rows(named=True)
    assert with_fnp["damage"] <= without["damage"] + 1e-9
    assert with_fnp["damage_capped"] <= without["damage_capped"] + 1e-9


@settings(max_examples=10, deadline=None)
@given(st.lists(weapon_specs, min_size=2, max_size=6), st.lists(target_specs, min_size=2, max_size=5), scenarios)
def test_distinct_profiles_do_not_mix_cells(ws: list[dict[str, Any]], ts: list[dict[str, Any]], scenario: str) -> None:
    """The whole matrix at once (deduped, cross joined, expanded) equals each weapon and each target alone."""
    weapons = [_weapon(w, f"w{i}") for i, w in enumerate(ws + ws[:1])]  # a duplicate statline too
    targets = [target(f"t{i}", **t) for i, t in enumerate(ts + ts[:1])]
    together = _by_cell(run(weapons, targets, [scenario]))
    alone: dict[tuple[str, str], dict[str, Any]] = {}
    for w in weapons:
        alone.update(_by_cell(run([w], targets, [scenario])))
    for t in targets:
        for cell_key, row in _by_cell(run(weapons, [t], [scenario])).items():
            for output in (*OUTPUTS, *UNIT_OUTPUTS):
                assert row[output] == pytest.approx(alone[cell_key][output], rel=1e-12, abs=1e-15), output
    assert together.keys() == alone.keys()
    for cell_key, row in together.items():
        for output in (*OUTPUTS, *UNIT_OUTPUTS):
            assert row[output] == pytest.approx(alone[cell_key][output], rel=1e-12, abs=1e-15), output


def _by_cell(matrix: pl.DataFrame) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(r["weapon_id"]), str(r["profile_id"])): r for r in matrix.iter_rows(named=True)}
