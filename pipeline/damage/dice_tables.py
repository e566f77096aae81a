"""Exact per-attack expectations over the Damage dice distribution: halving, damage reduction per roll and the
Wounds cap after Feel No Pain are not linear in the mean (docs/damage.md#how-it-is-computed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: (damage n, sides, plus, melta n, sides, plus): the weapon side of a damage key.
DamageDice = tuple[int, int, int, int, int, int]
#: (damage reduction or 0, FNP threshold or 7, wounds, halve damage): the target side.
DamageTarget = tuple[int, int, int, bool]


def dice_pmf(n: int, sides: int, plus: int) -> FloatArray:
    """P(total = k) for `nDsides+plus`, indexed by k (a fixed value when n == 0)."""
    pmf = np.zeros(plus + 1)
    pmf[plus] = 1.0
    if n == 0 or sides == 0:
        return pmf
    die = np.zeros(sides + 1)
    die[1:] = 1.0 / sides
    for _ in range(n):
        pmf = np.convolve(pmf, die)
    return pmf


def halved(pmf: FloatArray) -> FloatArray:
    """P(ceil(D / 2) = d): "halve the Damage characteristic", rounding up."""
    out = np.zeros(len(pmf))
    np.add.at(out, (np.arange(len(pmf)) + 1) // 2, pmf)
    return out


def raw_damage_pmfs(keys: Sequence[DamageDice], halve: bool = False) -> FloatArray:
    """Rows: P(Damage (halved first when `halve`) + Melta = d) per key, padded to a common length."""
    pmfs = [np.convolve(_maybe_halved(dice_pmf(*key[:3]), halve), dice_pmf(*key[3:])) for key in keys]
    width = max([2, *(len(p) for p in pmfs)])  # room for max(1, d - r) even for D0
    table = np.zeros((len(pmfs), width))
    for row, pmf in enumerate(pmfs):
        table[row, : len(pmf)] = pmf
    return table


def _maybe_halved(pmf: FloatArray, halve: bool) -> FloatArray:
    return halved(pmf) if halve else pmf


def reduction_matrix(width: int, reduction: int) -> FloatArray:
    """Maps raw damage d to max(1, d - reduction) (identity when there is no reduction)."""
    matrix = np.zeros((width, width))
    for d in range(width):
        matrix[d, max(1, d - reduction) if reduction > 0 else d] = 1.0
    return matrix


def binomial_matrix(width: int, p_lose: float) -> FloatArray:
    """B[e, k] = P(Binomial(e, p_lose) = k) for e, k < width."""
    matrix = np.zeros((width, width))
    for e in range(width):
        for k in range(e + 1):
            matrix[e, k] = comb(e, k) * p_lose**k * (1.0 - p_lose) ** (e - k)
    return matrix


def capped_loss(binomial: FloatArray, wounds: int) -> FloatArray:
    """g[e] = E[min(Binomial(e, p_lose), wounds)]: FNP per point, then the cap."""
    return binomial @ np.minimum(np.arange(binomial.shape[1]), wounds).astype(np.float64)


def fnp_lose_probability(fnp: int) -> float:
    """Chance a point of damage is NOT ignored by Feel No Pain `fnp`+ (7 = no FNP)."""
    return min(max(fnp - 1, 0), 6) / 6.0


@dataclass(frozen=True)
class DamageTable:
    """Per (weapon damage key, target damage key): E[D_eff], E[D_eff after FNP], E[capped]."""

    mean: FloatArray
    after_fnp: FloatArray
    capped: FloatArray


def damage_table(weapon_keys: Sequence[DamageDice], target_keys: Sequence[DamageTarget]) -> DamageTable:
    """Dense [weapon key, target key] tables of the three per-attack expectations."""
    raw = {h: raw_damage_pmfs(weapon_keys, h) for h in (False, True)}
    width = raw[False].shape[1]
    shape = (len(weapon_keys), len(target_keys))
    mean, after_fnp, capped = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    values = np.arange(width, dtype=np.float64)
    effective = {(r, h): raw[h] @ reduction_matrix(width, r) for r, _, _, h in target_keys}
    binomials = {f: binomial_matrix(width, fnp_lose_probability(f)) for f in {t[1] for t in target_keys}}
    for column, (reduction, fnp, wounds, halve) in enumerate(target_keys):
        pmf = effective[(reduction, halve)]
        mean[:, column] = pmf @ values
        after_fnp[:, column] = mean[:, column] * fnp_lose_probability(fnp)
        capped[:, column] = pmf @ capped_loss(binomials[fnp], wounds)
    return DamageTable(mean=mean, after_fnp=after_fnp, capped=capped)


#: (n, sides, plus) of a weapon's Strength dice (n == 0: a fixed Strength).
StrengthDice = tuple[int, int, int]
#: The wound roll needed for S vs T (DAMAGE_RULES.md step 3), before modifiers.
WOUND_NEEDS: tuple[int, ...] = (2, 3, 4, 5, 6)
#: Highest Toughness the strength table covers (the record contract's bound).
MAX_TOUGHNESS = 20


def wound_need(strength: int, toughness: int) -> int:
    """The wound table: 2+ at S >= 2T, 3+ at S > T, 4+ at S == T, 6+ at 2S <= T, else 5+."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    return 6 if 2 * strength <= toughness else 5


def wound_need_table(keys: Sequence[StrengthDice]) -> FloatArray:
    """Rows `key * (MAX_TOUGHNESS + 1) + T`: P(wound need = 2, 3, 4, 5, 6) for a Strength rolled per attack.

    A fixed Strength has one need with probability 1; `2D6` spreads over the needs its totals give.
    """
    table = np.zeros((len(keys) * (MAX_TOUGHNESS + 1), len(WOUND_NEEDS)))
    for row, key in enumerate(keys):
        pmf = dice_pmf(*key)
        for toughness in range(1, MAX_TOUGHNESS + 1):
            target = table[row * (MAX_TOUGHNESS + 1) + toughness]
            for strength, p in enumerate(pmf):
                if p > 0:
                    target[wound_need(strength, toughness) - 2] += p
    return table
