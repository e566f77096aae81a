"""Monte Carlo simulator of the attack sequence, dice rolled one by one.

Written from the rules text (the core rules and docs/damage.md), not
from the engine's formulas: each attack rolls its hit die, each hit its wound
die (re-rolled once on a failure with Twin-linked), each wound its save or its
Devastating Wounds mortal wounds, each unsaved wound its Damage dice, and each
point of damage its Feel No Pain die. Results per trial are averaged; the tests
compare the engine with the mean within a few standard errors.

Unit level (`models_slain`, `wounds_lost`): the trial also allocates its wounds to a
unit of `unit_size` models of the profile, one model at a time (a wounded model
takes the next wound, damage beyond its remaining wounds is lost), the mortal
wounds of Devastating Wounds after every other attack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pipeline.damage.scenarios import Scenario
from schemas.dice import Dice, parse_dice

OUTPUTS = ("attacks", "hits", "wounds", "mortal_wounds", "unsaved", "damage", "damage_capped",
           "self_mortal_wounds", "models_slain", "wounds_lost")  # fmt: skip


class DicePool:
    """D6 rolls from a seeded generator, handed out one at a time."""

    def __init__(self, seed: int, block: int = 1 << 20) -> None:
        self._rng = np.random.default_rng(seed)
        self._block = block
        self._refill()

    def _refill(self) -> None:
        self._rolls = self._rng.integers(1, 7, size=self._block).tolist()
        self._next = 0

    def d6(self) -> int:
        if self._next == self._block:
            self._refill()
        self._next += 1
        return int(self._rolls[self._next - 1])

    def d3(self) -> int:
        return (self.d6() + 1) // 2

    def roll(self, dice: Dice) -> int:
        """Roll `nDs+k`: each die separately."""
        die = self.d3 if dice.sides == 3 else self.d6
        return sum(die() for _ in range(dice.n)) + dice.plus


@dataclass(frozen=True)
class SimWeapon:
    attacks: str
    skill: int | None
    strength: int | str
    ap: int
    damage: str
    ranged: bool = True
    torrent: bool = False
    blast: bool = False
    lethal_hits: bool = False
    devastating_wounds: bool = False
    twin_linked: bool = False
    heavy: bool = False
    lance: bool = False
    ignores_cover: bool = False
    indirect_fire: bool = False
    hazardous: bool = False
    sustained_hits: str | None = None
    rapid_fire: str | None = None
    melta: str | None = None
    anti: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SimTarget:
    toughness: int
    save: int
    wounds: int
    invuln: int | None = None
    invuln_condition: str | None = None
    fnp: int | None = None
    damage_reduction: int | None = None
    keywords: tuple[str, ...] = ()
    unit_size: int = 1
    stealth: bool = False
    invuln_melee: int | None = None
    halve_damage: bool = False


class UnitState:
    """The target unit during one trial: models left, wounds left on the model taking the next wound."""

    def __init__(self, target: SimTarget) -> None:
        self.wounds, self.models, self.remaining = target.wounds, target.unit_size, target.wounds
        self.slain, self.lost = 0, 0

    def allocate(self, points: int) -> None:
        """Points lost (after FNP) by one wound: the rest beyond the model's remaining wounds is lost."""
        if self.slain == self.models:
            return
        taken = min(points, self.remaining)
        self.remaining -= taken
        self.lost += taken
        if self.remaining == 0:
            self.slain += 1
            self.remaining = self.wounds


def wound_need(strength: int, toughness: int) -> int:
    """The wound table of DAMAGE_RULES.md."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


class AttackSequence:
    """One weapon, one target, one scenario: resolves attacks die by die."""

    def __init__(self, weapon: SimWeapon, target: SimTarget, scenario: Scenario, dice: DicePool) -> None:
        self.w, self.t, self.s, self.dice = weapon, target, scenario, dice
        self.unseen = weapon.ranged and weapon.indirect_fire and not scenario.target_visible
        self.can_attack = not (
            weapon.ranged
            and not scenario.target_visible
            and (not weapon.indirect_fire or weapon.torrent or weapon.skill is None)
        )

    def number_of_attacks(self) -> int:
        attacks = self.dice.roll(parse_dice(self.w.attacks))
        if self.w.blast:
            attacks += self.t.unit_size // 5
        if self.w.rapid_fire and self.s.half_range:
            attacks += self.dice.roll(parse_dice(self.w.rapid_fire))
        return attacks

    def hit_modifier(self) -> int:
        total = 0
        if self.w.heavy and self.s.stationary:
            total += 1
        if self.t.stealth and self.w.ranged:
            total -= 1
        if self.unseen:
            total -= 1
        return max(-1, min(1, total))

    def hit_roll(self) -> tuple[bool, bool]:
        """(hit, critical hit) of one attack."""
        if self.w.torrent or self.w.skill is None:
            return True, False
        roll = self.dice.d6()
        if roll == 1 or (self.unseen and roll <= 3):
            return False, False
        if roll == 6:
            return True, True
        return roll + self.hit_modifier() >= self.w.skill, False

    def _one_wound_die(self, strength: int) -> tuple[bool, bool]:
        roll = self.dice.d6()
        critical = roll == 6 or any(
            roll >= threshold for keyword, threshold in self.w.anti.items() if keyword in self.t.keywords
        )
        if critical:
            return True, True
        if roll == 1:
            return False, False
        modifier = 1 if self.w.lance and self.s.charged else 0
        return roll + modifier >= wound_need(strength, self.t.toughness), False

    def wound_roll(self) -> tuple[bool, bool]:
        """(wounds, critical wound); Strength is rolled once per attack, Twin-linked re-rolls a failed wound die."""
        strength = self.dice.roll(parse_dice(str(self.w.strength)))
        wounded, critical = self._one_wound_die(strength)
        if not wounded and self.w.twin_linked:
            wounded, critical = self._one_wound_die(strength)
        return wounded, critical

    def saving_throw(self) -> bool:
        """True if saved: the defender picks the better of armour (AP, cover) and an applicable invuln."""
        cover = (
            (self.s.cover or self.unseen)
            and self.w.ranged
            and not self.w.ignores_cover
            and not (self.t.save <= 3 and self.w.ap == 0)
        )
        armour_need = self.t.save - self.w.ap - (1 if cover else 0)
        condition = self.t.invuln_condition
        kind = "ranged" if self.w.ranged else "melee"
        invuln = self.t.invuln if condition in (None, kind) else None
        if kind == "melee" and self.t.invuln_melee is not None:
            invuln = self.t.invuln_melee
        roll = self.dice.d6()
        if roll == 1:
            return False
        return roll >= min(armour_need, invuln or 7)

    def damage_characteristic(self) -> int:
        damage = self.dice.roll(parse_dice(self.w.damage))
        if self.t.halve_damage:
            damage = (damage + 1) // 2
        if self.w.melta and self.s.half_range:
            damage += self.dice.roll(parse_dice(self.w.melta))
        if self.t.damage_reduction:
            damage = max(1, damage - self.t.damage_reduction)
        return damage

    def points_lost(self, points: int) -> int:
        """Feel No Pain rolled for each point of damage."""
        if self.t.fnp is None:
            return points
        return sum(1 for _ in range(points) if self.dice.d6() < self.t.fnp)


def _resolve_wound(seq: AttackSequence, critical: bool, totals: dict[str, float], unit: Trial) -> None:
    """Saves or Devastating Wounds, then damage, FNP, the per-attack cap and the unit's allocation."""
    devastating = seq.w.devastating_wounds and critical
    if devastating:
        points = seq.damage_characteristic()
        totals["mortal_wounds"] += points
    elif not seq.saving_throw():
        totals["unsaved"] += 1
        points = seq.damage_characteristic()
    else:
        return
    lost = seq.points_lost(points)
    totals["damage"] += lost
    totals["damage_capped"] += min(lost, seq.t.wounds)
    if devastating:
        unit.deferred.append(lost)  # mortal wounds wait until every other attack is resolved
    else:
        unit.state.allocate(lost)


@dataclass
class Trial:
    """One trial's unit and the Devastating Wounds mortal wounds waiting for it."""

    state: UnitState
    deferred: list[int] = field(default_factory=list)


def _resolve_hit(seq: AttackSequence, lethal_critical: bool, totals: dict[str, float], unit: Trial) -> None:
    if lethal_critical:  # Lethal Hits: wounds automatically, not a Critical Wound
        totals["wounds"] += 1
        _resolve_wound(seq, False, totals, unit)
        return
    wounded, critical = seq.wound_roll()
    if wounded:
        totals["wounds"] += 1
        _resolve_wound(seq, critical, totals, unit)


def one_trial(seq: AttackSequence) -> dict[str, float]:
    """One use of the weapon by one model."""
    totals = dict.fromkeys(OUTPUTS, 0.0)
    if not seq.can_attack:
        return totals
    unit = Trial(UnitState(seq.t))
    totals["attacks"] = attacks = seq.number_of_attacks()
    for _ in range(attacks):
        hit, critical = seq.hit_roll()
        if not hit:
            continue
        extra = seq.dice.roll(parse_dice(seq.w.sustained_hits)) if critical and seq.w.sustained_hits else 0
        totals["hits"] += 1 + extra
        _resolve_hit(seq, critical and seq.w.lethal_hits, totals, unit)
        for _ in range(extra):
            _resolve_hit(seq, False, totals, unit)
    for points in unit.deferred:
        unit.state.allocate(points)
    totals["models_slain"], totals["wounds_lost"] = unit.state.slain, unit.state.lost
    if seq.w.hazardous and seq.dice.d6() == 1:
        totals["self_mortal_wounds"] += 3
    return totals


def simulate(weapon: SimWeapon, target: SimTarget, scenario: Scenario, trials: int,
             dice: DicePool) -> dict[str, tuple[float, float]]:  # fmt: skip
    """output -> (mean, standard error of the mean) over `trials` trials."""
    seq = AttackSequence(weapon, target, scenario, dice)
    samples = np.array([[r[o] for o in OUTPUTS] for r in (one_trial(seq) for _ in range(trials))])
    means = samples.mean(axis=0)
    errors = samples.std(axis=0, ddof=1) / np.sqrt(trials)
    return {o: (float(means[i]), float(errors[i])) for i, o in enumerate(OUTPUTS)}
