"""How many wounds one weapon entry scores on a unit: a joint pmf over (normal wounds, devastating wounds).

Hit and wound rolls do not depend on which model an attack will be allocated to
(the wound roll uses the unit's Toughness), so a whole entry's wounds can be
counted before allocation. The pmf is indexed `[normal, devastating]`; normal
wounds go to saving throws, devastating ones (Critical Wounds of a Devastating
Wounds weapon) become mortal wounds after every other attack. Tails below
`TAIL` are dropped (the only approximation of the engine).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pipeline.damage import dice_tables
from pipeline.damage.scenarios import Scenario
from pipeline.units.model import Weapon
from schemas.dice import Dice

FloatArray = npt.NDArray[np.float64]

TAIL = 1e-16
"""Probability mass dropped from the end of a count distribution (per axis)."""


def dice_pmf(dice: Dice) -> FloatArray:
    """P(total = k) for a dice expression, indexed by k."""
    return dice_tables.dice_pmf(dice.n, dice.sides, dice.plus)


def trim(pmf: FloatArray, tail: float = TAIL) -> FloatArray:
    """Drop trailing rows and columns whose total mass is below `tail` (keeps at least one of each)."""
    for axis in (0, 1):
        marginal = pmf.sum(axis=1 - axis)
        after = np.cumsum(marginal[::-1])[::-1]  # after[i] = mass at index >= i
        keep = max(1, int(np.count_nonzero(after >= tail)))
        pmf = pmf[:keep] if axis == 0 else pmf[:, :keep]
    return pmf


def convolve2(a: FloatArray, b: FloatArray) -> FloatArray:
    """Exact 2-D linear convolution: rows padded to the output width, then one 1-D convolution."""
    height, width = a.shape[0] + b.shape[0] - 1, a.shape[1] + b.shape[1] - 1
    wide_a = np.zeros((a.shape[0], width))
    wide_a[:, : a.shape[1]] = a
    wide_b = np.zeros((b.shape[0], width))
    wide_b[:, : b.shape[1]] = b
    return np.convolve(wide_a.ravel(), wide_b.ravel())[: height * width].reshape(height, width)


def power(pmf: FloatArray, n: int) -> FloatArray:
    """The pmf of the sum of `n` independent copies (squaring), trimmed."""
    result = np.ones((1, 1))
    base = pmf
    while n:
        if n & 1:
            result = trim(convolve2(result, base))
        n >>= 1
        if n:
            base = trim(convolve2(base, base))
    return result


def mixture(weights: FloatArray, base: FloatArray) -> FloatArray:
    """sum_k weights[k] * base^k: the pmf after a random number of copies."""
    return mixture_of_powers(weights, base, [np.ones((1, 1))])


def mixture_of_powers(weights: FloatArray, base: FloatArray, powers: list[FloatArray]) -> FloatArray:
    """`mixture`, with base^0, base^1, ... (each trimmed) taken from `powers` and appended to it when missing:
    a caller that keeps the list shares the convolutions between attack dice on one outcome."""
    total = np.zeros((1, 1))
    for k, weight in enumerate(weights):
        if k == len(powers):
            powers.append(trim(convolve2(powers[-1], base)))
        if weight > 0:
            total = _add(total, weight * powers[k])
    return trim(total)


def _add(a: FloatArray, b: FloatArray) -> FloatArray:
    out = np.zeros((max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])))
    out[: a.shape[0], : a.shape[1]] += a
    out[: b.shape[0], : b.shape[1]] += b
    return out


@dataclass(frozen=True, slots=True)
class WoundContext:
    """What the wound count reads from the target and the situation."""

    toughness: int
    anti_keywords: frozenset[str]
    stealth: bool
    blast_bonus: int
    scenario: Scenario


def wound_table(strength: int, toughness: int) -> int:
    """The wound table of DAMAGE_RULES.md: the D6 result needed before modifiers."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    return 6 if 2 * strength <= toughness else 5


def can_attack(weapon: Weapon, scenario: Scenario) -> bool:
    """A ranged weapon needs a visible target unless it has Indirect Fire (and a hit roll to make)."""
    return not (weapon.ranged and not scenario.target_visible and (not weapon.indirect_fire or weapon.auto_hit))


def unseen(weapon: Weapon, scenario: Scenario) -> bool:
    return weapon.ranged and weapon.indirect_fire and not scenario.target_visible


def hit_chances(weapon: Weapon, ctx: WoundContext) -> tuple[float, float]:
    """(P(hit), P(Critical Hit)) of one attack; Torrent hits without a roll, so never critically."""
    if weapon.auto_hit:
        return 1.0, 0.0
    blind = unseen(weapon, ctx.scenario)
    bonus = int(weapon.heavy and ctx.scenario.stationary) - int(ctx.stealth and weapon.ranged) - int(blind)
    need = min(max(int(weapon.skill or 2) - max(-1, min(1, bonus)), 4 if blind else 2), 6)
    return (7 - need) / 6.0, 1.0 / 6.0


def wound_roll(weapon: Weapon, strength: int, ctx: WoundContext) -> FloatArray:
    """One wound roll as a pmf [normal, devastating]: fail / normal wound / devastating wound."""
    bonus = int(weapon.lance and ctx.scenario.charged)
    need = min(max(wound_table(strength, ctx.toughness) - bonus, 2), 6)
    crit = min([6, *(t for k, t in weapon.anti if k in ctx.anti_keywords)])
    p_success, p_crit = (7 - min(need, crit)) / 6.0, (7 - crit) / 6.0
    if weapon.twin_linked:  # a failed die is re-rolled once
        p_success, p_crit = p_success + (1 - p_success) * p_success, p_crit + (1 - p_success) * p_crit
    devastating = p_crit if weapon.devastating_wounds else 0.0
    roll = np.zeros((2, 2))
    roll[0, 0], roll[1, 0], roll[0, 1] = 1 - p_success, p_success - devastating, devastating
    return roll


def attack_outcome(weapon: Weapon, ctx: WoundContext) -> FloatArray:
    """Wounds scored by one attack (hit roll, Sustained/Lethal Hits, wound rolls), mixed over dice Strength."""
    p_hit, p_crit = hit_chances(weapon, ctx)
    extra = dice_pmf(weapon.sustained_hits) if weapon.sustained_hits else np.ones(1)
    total = np.zeros((1, 1))
    for strength, p_strength in enumerate(dice_pmf(weapon.strength)):
        if p_strength == 0:
            continue
        roll = wound_roll(weapon, strength, ctx)
        critical = roll if not weapon.lethal_hits else np.array([[0.0], [1.0]])  # auto-wound, not critical
        sustained = mixture(extra, roll)
        outcome = _add(_add(np.array([[1 - p_hit]]), (p_hit - p_crit) * roll), p_crit * convolve2(critical, sustained))
        total = _add(total, p_strength * outcome)
    return trim(total)


def count_key(weapon: Weapon, ctx: WoundContext) -> tuple[object, ...]:
    """Everything `wound_counts` reads from the context for this weapon (equal keys: equal pmfs).

    Toughness only through the wound roll needed per Strength value, keywords only
    through the Anti threshold, Blast's bonus only for Blast weapons: many targets share one count.
    """
    if not can_attack(weapon, ctx.scenario):
        return ("none",)
    crit = min([6, *(t for k, t in weapon.anti if k in ctx.anti_keywords)])
    bonus = int(weapon.lance and ctx.scenario.charged)
    strengths = np.flatnonzero(dice_pmf(weapon.strength)).tolist()
    needs = tuple(min(max(wound_table(s, ctx.toughness) - bonus, 2), 6) for s in strengths)
    return (hit_chances(weapon, ctx), crit, needs, ctx.blast_bonus if weapon.blast else 0)


def attacks_per_model(weapon: Weapon, ctx: WoundContext) -> FloatArray:
    """Attacks of one model: its dice, Blast's bonus, Rapid Fire at half range."""
    pmf = dice_pmf(weapon.attacks)
    if weapon.blast:
        pmf = np.concatenate([np.zeros(ctx.blast_bonus), pmf])
    if weapon.rapid_fire and ctx.scenario.half_range:
        pmf = np.convolve(pmf, dice_pmf(weapon.rapid_fire))
    return pmf


def wound_counts(weapon: Weapon, models: int, ctx: WoundContext) -> FloatArray:
    """Joint pmf [normal, devastating] of the wounds `models` models score with the weapon."""
    if not can_attack(weapon, ctx.scenario):
        return np.ones((1, 1))
    per_model = mixture(attacks_per_model(weapon, ctx), attack_outcome(weapon, ctx))
    return power(per_model, models)
