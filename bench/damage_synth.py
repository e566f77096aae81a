"""Synthetic damage-engine inputs shaped like the Wahapedia export (bench only).

Used when `pipeline.sources.wahapedia` cannot be imported. Sizes are the
export's (6,768 weapon rows, 1,720 model rows); value frequencies follow the
export's columns (A, BS/WS, S, AP, D, abilities, T, Sv, invuln, W, unit sizes),
and rows are drawn from a smaller set of distinct statlines because the export
repeats statlines across datasheets (about 2,400 distinct weapon statlines and
450 distinct T/Sv/inv/W lines). Fixed seed: the same frames on every run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from pipeline.damage.inputs import POINTS_SCHEMA, TARGET_SCHEMA, WEAPON_ABILITY_SCHEMA, WEAPON_SCHEMA
from schemas.dice import parse_dice

Choice = dict[Any, float]

ATTACKS: Choice = {
    "1": 1662,
    "3": 1208,
    "2": 983,
    "4": 591,
    "D6": 562,
    "6": 525,
    "5": 313,
    "D3": 185,
    "D6+3": 131,
    "8": 103,
    "2D6": 89,
    "12": 76,
    "D6+1": 52,
    "10": 30,
    "3D6": 18,
    "20": 12,
}
SKILL: Choice = {3: 3103, 4: 1885, 2: 1015, None: 426, 5: 319, 6: 18}
STRENGTH: Choice = {
    4: 1621,
    5: 1158,
    6: 851,
    8: 792,
    9: 545,
    7: 460,
    3: 388,
    12: 326,
    14: 225,
    10: 201,
    2: 73,
    16: 49,
    20: 33,
    18: 20,
    24: 10,
}
AP: Choice = {0: 2248, -1: 1683, -2: 1555, -3: 871, -4: 385, -5: 19, -6: 6}
DAMAGE: Choice = {
    "1": 3432,
    "2": 1613,
    "3": 546,
    "D6": 474,
    "D6+1": 270,
    "D3": 197,
    "D6+2": 61,
    "6": 38,
    "4": 38,
    "D6+6": 19,
    "8": 18,
    "D6+3": 14,
    "D3+3": 10,
    "12": 9,
    "2D6": 4,
}
#: (ability, value, keyword): weight among weapons that have abilities.
ABILITIES: Choice = {
    ("devastating_wounds", None, None): 92,
    ("blast", None, None): 75,
    ("twin_linked", None, None): 69,
    ("assault", None, None): 65,
    ("psychic", None, None): 64,
    ("heavy", None, None): 62,
    ("pistol", None, None): 62,
    ("ignores_cover", None, None): 55,
    ("hazardous", None, None): 54,
    ("precision", None, None): 54,
    ("sustained_hits", "1", None): 43,
    ("lethal_hits", None, None): 34,
    ("rapid_fire", "1", None): 25,
    ("indirect_fire", None, None): 25,
    ("anti", "4+", "VEHICLE"): 24,
    ("anti", "2+", "INFANTRY"): 20,
    ("anti", "3+", "INFANTRY"): 19,
    ("extra_attacks", None, None): 19,
    ("melta", "2", None): 18,
    ("anti", "4+", "INFANTRY"): 16,
    ("sustained_hits", "2", None): 15,
    ("anti", "4+", "MONSTER"): 15,
    ("rapid_fire", "2", None): 13,
    ("sustained_hits", "D3", None): 12,
    ("anti", "2+", "PSYKER"): 11,
    ("one_shot", None, None): 11,
    ("lance", None, None): 10,
    ("anti", "2+", "FLY"): 8,
    ("melta", "4", None): 3,
    ("rapid_fire", "D3", None): 2,
    ("other", None, None): 12,
}
TOUGHNESS: Choice = {
    4: 305,
    3: 288,
    5: 212,
    9: 163,
    10: 152,
    6: 144,
    12: 112,
    11: 108,
    13: 72,
    7: 69,
    8: 67,
    2: 13,
    14: 12,
}
SAVE: Choice = {3: 669, 2: 476, 4: 243, 5: 163, 6: 117, 7: 52}
INVULN: Choice = {None: 913, 4: 397, 5: 309, 6: 95, 2: 3}
WOUNDS: Choice = {
    4: 210,
    3: 185,
    1: 179,
    2: 159,
    5: 121,
    6: 113,
    10: 110,
    12: 87,
    14: 70,
    18: 69,
    11: 65,
    16: 54,
    8: 52,
    24: 44,
    7: 43,
    20: 31,
    30: 27,
    9: 25,
    13: 23,
    22: 13,
}
UNIT_SIZE: Choice = {1: 1157, 10: 213, 5: 174, 3: 138, 6: 88, 2: 83, 4: 36, 20: 27, 11: 14}
KEYWORDS: Choice = {
    "INFANTRY": 0.45,
    "VEHICLE": 0.33,
    "CHARACTER": 0.3,
    "FLY": 0.22,
    "MONSTER": 0.07,
    "PSYKER": 0.09,
    "TITANIC": 0.08,
    "MOUNTED": 0.05,
}


def _pick(rng: np.random.Generator, choice: Choice, size: int) -> list[Any]:
    keys = list(choice)
    weights = np.array([choice[k] for k in keys], dtype=np.float64)
    picked = rng.choice(len(keys), size=size, p=weights / weights.sum())
    return [keys[i] for i in picked]


def _weapon_bases(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    columns = {
        name: _pick(rng, table, n)
        for name, table in {
            "attacks": ATTACKS,
            "skill": SKILL,
            "strength": STRENGTH,
            "ap": AP,
            "damage": DAMAGE,
        }.items()
    }
    melee = rng.random(n) < 0.33
    n_abilities = rng.choice([0, 1, 2, 3], size=n, p=[0.62, 0.25, 0.1, 0.03])
    bases = []
    for i in range(n):
        abilities = list(dict.fromkeys(_pick(rng, ABILITIES, int(n_abilities[i]))))
        skill = columns["skill"][i]
        if skill is None:
            abilities.append(("torrent", None, None))
        bases.append(
            {
                **{k: v[i] for k, v in columns.items()},
                "kind": "melee" if melee[i] else "ranged",
                "abilities": abilities,
            }
        )
    return bases


def _weapon_rows(
    rng: np.random.Generator, n_weapons: int, n_datasheets: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    bases = _weapon_bases(rng, 2400)
    weights = 1.0 / np.arange(1, len(bases) + 1) ** 0.6
    picks = rng.choice(len(bases), size=n_weapons, p=weights / weights.sum())
    weapons, abilities = [], []
    for i, base_index in enumerate(picks):
        base = bases[base_index]
        weapon_id = f"w{i:05d}"
        weapons.append(
            {
                "weapon_id": weapon_id,
                "datasheet_id": f"ds{rng.integers(n_datasheets):04d}",
                "name": weapon_id,
                "kind": base["kind"],
                "range_inches": None if base["kind"] == "melee" else 24,
                "attacks": base["attacks"],
                "skill": base["skill"],
                "strength": str(base["strength"]),
                "ap": base["ap"],
                "damage": base["damage"],
                "abilities": [a[0] for a in base["abilities"]],
                "attacks_mean": parse_dice(base["attacks"]).mean,
                "strength_mean": float(base["strength"]),
                "damage_mean": parse_dice(base["damage"]).mean,
            }
        )
        for ability, value, keyword in base["abilities"]:
            raw = f"{ability} {value or ''}".strip() if ability != "other" else f"faction rule {base_index % 7}"
            abilities.append(
                {"weapon_id": weapon_id, "ability": ability, "value": value, "keyword": keyword, "raw": raw}
            )
    return weapons, abilities


def _target_rows(rng: np.random.Generator, n_profiles: int) -> list[dict[str, Any]]:
    n_bases = 700
    stats = {
        name: _pick(rng, table, n_bases)
        for name, table in {
            "toughness": TOUGHNESS,
            "save": SAVE,
            "invuln": INVULN,
            "wounds": WOUNDS,
            "unit_size": UNIT_SIZE,
        }.items()
    }
    fnp = _pick(rng, {None: 0.88, 5: 0.06, 6: 0.04, 4: 0.02}, n_bases)
    reduction = _pick(rng, {None: 0.95, 1: 0.05}, n_bases)
    bases = []
    for i in range(n_bases):
        keywords = [k for k, p in KEYWORDS.items() if rng.random() < p]
        bases.append(
            {
                **{k: v[i] for k, v in stats.items()},
                "fnp": fnp[i],
                "damage_reduction": reduction[i],
                "keywords": keywords,
                "invuln_condition": "ranged" if rng.random() < 0.03 else None,
            }
        )
    picks = rng.choice(n_bases, size=n_profiles)
    return [{**bases[b], "profile_id": f"p{i:05d}", "name": f"model {i}"} for i, b in enumerate(picks)]


def synthetic_frames(seed: int = 20250709, n_weapons: int = 6768, n_profiles: int = 1720) -> dict[str, pl.DataFrame]:
    """weapons, weapon_abilities, targets (model rows only) and points frames."""
    rng = np.random.default_rng(seed)
    n_datasheets = 1624
    weapons, abilities = _weapon_rows(rng, n_weapons, n_datasheets)
    targets = _target_rows(rng, n_profiles)
    models = _pick(rng, UNIT_SIZE, n_datasheets)
    points = [
        {"datasheet_id": f"ds{i:04d}", "models": m, "cost": int(15 * m + rng.integers(0, 200))}
        for i, m in enumerate(models)
    ]
    return {
        "weapons": pl.DataFrame(weapons, schema=WEAPON_SCHEMA),
        "weapon_abilities": pl.DataFrame(abilities, schema=WEAPON_ABILITY_SCHEMA),
        "targets": pl.DataFrame(targets, schema=TARGET_SCHEMA),
        "points": pl.DataFrame(points, schema=POINTS_SCHEMA),
    }
