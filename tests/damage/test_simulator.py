"""The engine against the Monte Carlo simulator on random weapon × target × scenario cells."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from schemas.dice import parse_dice
from tests.damage import builders
from tests.damage.simulator import OUTPUTS, DicePool, SimTarget, SimWeapon, simulate

CELLS = 300
TRIALS = 400
SEED = 20240607

ABILITY_CHOICES = [
    "torrent", "blast", "lethal hits", "devastating wounds", "twin-linked", "heavy", "lance", "ignores cover",
    "indirect fire", "hazardous", "sustained hits 1", "sustained hits d3", "sustained hits 2", "rapid fire 1",
    "rapid fire d3", "melta 2", "melta d3", "anti-infantry 4+", "anti-vehicle 2+", "anti-monster 5+",
    "assault", "precision", "pistol",
]  # fmt: skip
KEYWORD_CHOICES = ["INFANTRY", "VEHICLE", "MONSTER", "CHARACTER"]


def _random_weapon(rng: random.Random, index: int) -> dict[str, Any]:
    abilities = sorted(set(rng.sample(ABILITY_CHOICES, rng.choice([0, 1, 2, 2, 3, 4]))))
    return {
        "weapon_id": f"w{index:03d}", "kind": rng.choice(["ranged", "ranged", "melee"]),
        "attacks": rng.choice(["1", "2", "3", "4", "6", "D3", "D6", "D6+1", "2D6"]),
        "skill": None if "torrent" in abilities else rng.choice([2, 3, 4, 5]),
        "strength": rng.choice([3, 4, 5, 6, 8, 9, 12, 16, "2D6", "D6+6"]), "ap": rng.choice([0, -1, -2, -3, -4]),
        "damage": rng.choice(["1", "2", "3", "D3", "D6", "D6+1", "D3+1", "2D6"]), "abilities": abilities,
    }  # fmt: skip


def _random_target(rng: random.Random, index: int) -> dict[str, Any]:
    invuln = rng.choice([None, None, 4, 5, 6])
    extra = random.Random(SEED + index)  # rules added later draw apart: the sampled cells stay the same
    return {
        "halve_damage": extra.random() < 0.2,
        "invuln_melee": extra.choice([None, None, None, 3]) if invuln else None,
        "profile_id": f"t{index:03d}", "toughness": rng.choice([2, 3, 4, 5, 6, 8, 10, 12]),
        "save": rng.choice([2, 3, 4, 5, 6, 7]), "wounds": rng.choice([1, 2, 3, 4, 6, 10]),
        "invuln": invuln, "invuln_condition": rng.choice([None, "ranged", "melee"]) if invuln else None,
        "fnp": rng.choice([None, None, None, 5, 6, 4]), "damage_reduction": rng.choice([None, None, None, 1]),
        "keywords": sorted(set(rng.sample(KEYWORD_CHOICES, rng.choice([0, 1, 2])))),
        "unit_size": rng.choice([1, 3, 5, 10, 11, 20]), "stealth": rng.random() < 0.2,
    }  # fmt: skip


def _sim_weapon(spec: dict[str, Any]) -> SimWeapon:
    flags: dict[str, Any] = {}
    anti: dict[str, int] = {}
    for text in spec["abilities"]:
        name, _, value = text.rpartition(" ")
        if text.startswith("anti-"):
            anti[name.removeprefix("anti-").upper()] = int(value.rstrip("+"))
        elif name in ("sustained hits", "rapid fire", "melta"):
            flags[name.replace(" ", "_")] = value.upper()
        else:
            flags[text.replace(" ", "_").replace("-", "_")] = True
    flags = {k: v for k, v in flags.items() if k not in ("assault", "precision", "pistol")}
    stats = {k: spec[k] for k in ("attacks", "skill", "strength", "ap", "damage")}
    return SimWeapon(**stats, ranged=spec["kind"] == "ranged", anti=anti, **flags)


def _sim_target(spec: dict[str, Any]) -> SimTarget:
    fields = {k: v for k, v in spec.items() if k not in ("profile_id", "keywords")}
    return SimTarget(**fields, keywords=tuple(spec["keywords"]))


def _cells() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[int, int, str]]]:
    rng = random.Random(SEED)
    weapons = [_random_weapon(rng, i) for i in range(60)]
    targets = [_random_target(rng, i) for i in range(40)]
    scenarios = list(SCENARIO_DEFINITIONS)
    picks = [(rng.randrange(60), rng.randrange(40), rng.choice(scenarios)) for _ in range(CELLS)]
    return weapons, targets, picks


@pytest.fixture(scope="module")
def comparison() -> list[dict[str, Any]]:
    """Per sampled cell and output: engine value, simulated mean and standard error."""
    weapons, targets, picks = _cells()
    records = [builders.weapon(s["weapon_id"], **{k: v for k, v in s.items() if k != "weapon_id"}) for s in weapons]
    profiles = [
        builders.target(s["profile_id"], **{k: v for k, v in s.items() if k not in ("profile_id", "stealth")})
        for s in targets
    ]
    stealthy = [s["profile_id"] for s in targets if s["stealth"]]
    matrix = builders.run(records, profiles, list(SCENARIO_DEFINITIONS), stealth=stealthy)
    engine = {(r["weapon_id"], r["profile_id"], r["scenario"]): r for r in matrix.iter_rows(named=True)}
    rows = []
    for index, (wi, ti, scenario) in enumerate(picks):
        w, t = weapons[wi], targets[ti]
        dice = DicePool(SEED + index, block=1 << 14)  # a stream per cell: a rule that rolls fewer dice moves no other
        simulated = simulate(_sim_weapon(w), _sim_target(t), SCENARIO_DEFINITIONS[scenario], TRIALS, dice)
        expected = engine[(w["weapon_id"], t["profile_id"], scenario)]
        for output in OUTPUTS:
            mean, error = simulated[output]
            rows.append(
                {
                    "cell": (w, t, scenario),
                    "output": output,
                    "engine": expected[output],
                    "mean": mean,
                    "se": error,
                }
            )
    return rows


def _error(row: dict[str, Any]) -> float:
    """The standard error; when every trial gave the same count (a rare event never seen, e.g. slaying a
    model in 1 of 600 trials), the error of having seen it once: 1 / TRIALS."""
    return row["se"] if row["se"] > 0 else 1.0 / TRIALS


def test_every_sampled_cell_agrees_within_five_standard_errors(comparison: list[dict[str, Any]]) -> None:
    """3,000 comparisons of skewed 400-trial means: a 4σ fluke shows in about one seed of four (measured on
    seeds 1000-4000 and this one, on old and new outputs alike), a 5σ one practically never. Small
    systematic errors are the pooled test's job."""
    outside = [r for r in comparison if abs(r["engine"] - r["mean"]) > 5 * _error(r) + 1e-9]
    assert not outside, outside[:5]


def test_pooled_deviations_show_no_bias(comparison: list[dict[str, Any]]) -> None:
    """Pooled over all cells a small systematic error shows: mean z-score per output ~ N(0, 1/sqrt(n))."""
    for output in OUTPUTS:
        z = [(r["mean"] - r["engine"]) / r["se"] for r in comparison if r["output"] == output and r["se"] > 0]
        assert abs(np.mean(z)) * np.sqrt(len(z)) < 4, (output, np.mean(z), len(z))


def test_sample_exercises_every_ability_and_scenario() -> None:
    """The random sample is only evidence for what it contains."""
    weapons, _, picks = _cells()
    used = {a for wi, _, _ in picks for a in weapons[wi]["abilities"]}
    assert used == set(ABILITY_CHOICES)
    assert {s for _, _, s in picks} == set(SCENARIO_DEFINITIONS)


def test_dice_pool_rolls_fair_dice() -> None:
    dice = DicePool(1)
    rolls = [dice.roll(parse_dice("2D3")) for _ in range(30_000)]
    assert abs(np.mean(rolls) - 4.0) < 0.03
    assert set(rolls) == {2, 3, 4, 5, 6}
