"""Monte Carlo of a unit attacking a unit, dice rolled one by one (DAMAGE_RULES.md, "Unit level").

Written from the rules text, not from the engine: every attack rolls its hit,
wound and save dice, every unsaved wound its Damage and a Feel No Pain die per
point, and each wound is allocated to a live model as the rules say (a wounded
model first, Bodyguard before Leader, Precision at the Leader while it lives).
Devastating Wounds wait until every weapon has been resolved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.damage.scenarios import Scenario
from pipeline.units.model import ModelGroup, Phase, TargetUnit, Weapon
from schemas.dice import Dice


class Dice6:
    """Seeded D6 rolls handed out one at a time."""

    def __init__(self, seed: int, block: int = 1 << 20) -> None:
        self._rng = np.random.default_rng(seed)
        self._block = block
        self._refill()

    def _refill(self) -> None:
        self._rolls: list[int] = self._rng.integers(1, 7, size=self._block).tolist()
        self._next = 0

    def d6(self) -> int:
        if self._next == self._block:
            self._refill()
        self._next += 1
        return self._rolls[self._next - 1]

    def roll(self, dice: Dice) -> int:
        total = dice.plus
        for _ in range(dice.n):
            total += (self.d6() + 1) // 2 if dice.sides == 3 else self.d6()
        return total


@dataclass
class Model:
    profile: ModelGroup
    group: int
    wounds_left: int
    leader: bool


def wound_need(strength: int, toughness: int) -> int:
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    return 6 if 2 * strength <= toughness else 5


class Battle:
    """One attacking unit's attacks on one target unit."""

    def __init__(self, target: TargetUnit, phase: Phase, scenario: Scenario, dice: Dice6) -> None:
        self.target, self.phase, self.s, self.dice = target, phase, scenario, dice
        self.models = [
            Model(g, i, g.wounds, i >= len(target.groups))
            for i, g in enumerate(target.groups + target.leader)
            for _ in range(g.count)
        ]
        votes: dict[int, int] = {}
        for g in target.groups:
            votes[g.toughness] = votes.get(g.toughness, 0) + g.count
        self.toughness = max(votes, key=lambda t: (votes[t], t))
        self.keywords = {k for g in target.groups + target.leader for k in g.keywords}
        self.stealth = all(g.stealth for g in target.groups + target.leader)
        self.size = len(self.models)

    # --- allocation --------------------------------------------------------------------------------------

    def _pick(self, leader: bool) -> Model | None:
        alive = [m for m in self.models if m.wounds_left > 0 and m.leader == leader]
        wounded = [m for m in alive if m.wounds_left < m.profile.wounds]
        candidates = wounded or alive
        return candidates[0] if candidates else None

    def allocate(self, precision: bool) -> Model | None:
        if precision and self.target.leader:
            return self._pick(True) or self._pick(False)
        return self._pick(False) or self._pick(True)

    # --- the attack sequence ------------------------------------------------------------------------------

    def hits(self, w: Weapon) -> list[bool]:
        """Per hit: True when it wounds automatically (Lethal Hits)."""
        if w.torrent or w.skill is None:
            return [False]
        unseen = w.ranged and w.indirect_fire and not self.s.target_visible
        roll = self.dice.d6()
        if roll == 1 or (unseen and roll <= 3):
            return []
        if roll == 6:
            extra = self.dice.roll(w.sustained_hits) if w.sustained_hits else 0
            return [w.lethal_hits] + [False] * extra
        modifier = int(w.heavy and self.s.stationary) - int(self.stealth and w.ranged) - int(unseen)
        return [False] if roll + max(-1, min(1, modifier)) >= (w.skill or 7) else []

    def wound(self, w: Weapon, strength: int) -> str:
        """'none', 'normal' or 'devastating' for one hit that rolls to wound."""
        result = self._wound_die(w, strength)
        if result == "none" and w.twin_linked:
            result = self._wound_die(w, strength)
        return result

    def _wound_die(self, w: Weapon, strength: int) -> str:
        roll = self.dice.d6()
        critical = roll == 6 or any(roll >= t for k, t in w.anti if k in self.keywords)
        if critical:
            return "devastating" if w.devastating_wounds else "normal"
        if roll == 1:
            return "none"
        bonus = 1 if w.lance and self.s.charged else 0
        return "normal" if roll + bonus >= wound_need(strength, self.toughness) else "none"

    def damage(self, w: Weapon, model: Model) -> int:
        d = self.dice.roll(w.damage)
        if model.profile.halve_damage:
            d = (d + 1) // 2
        if w.melta and self.s.half_range:
            d += self.dice.roll(w.melta)
        if model.profile.damage_reduction:
            d = max(1, d - model.profile.damage_reduction)
        return d

    def inflict(self, w: Weapon, model: Model, points: int) -> None:
        for _ in range(points):
            if model.wounds_left == 0:
                return  # the rest is lost
            if self.dice.d6() < model.profile.fnp:
                model.wounds_left -= 1

    def saved(self, w: Weapon, model: Model) -> bool:
        p = model.profile
        unseen = w.ranged and w.indirect_fire and not self.s.target_visible
        cover = (self.s.cover or unseen) and w.ranged and not w.ignores_cover and not (p.save <= 3 and w.ap == 0)
        armour = p.save - w.ap - (1 if cover else 0)
        invuln = p.invuln_ranged if self.phase is Phase.SHOOTING else p.invuln_melee
        roll = self.dice.d6()
        return roll != 1 and roll >= min(armour, invuln)

    def attacks(self, w: Weapon) -> int:
        if w.ranged and not self.s.target_visible and (not w.indirect_fire or w.torrent or w.skill is None):
            return 0
        n = self.dice.roll(w.attacks) + (self.size // 5 if w.blast else 0)
        if w.rapid_fire and self.s.half_range:
            n += self.dice.roll(w.rapid_fire)
        return n

    def fire(self, w: Weapon, uses: int) -> int:
        """Resolve one weapon's normal wounds now; return its devastating wounds (deferred)."""
        normal = devastating = 0
        for _ in range(uses):
            for _ in range(self.attacks(w)):
                strength = self.dice.roll(w.strength)
                for automatic in self.hits(w):
                    result = "normal" if automatic else self.wound(w, strength)
                    normal += result == "normal"
                    devastating += result == "devastating"
        for _ in range(normal):
            model = self.allocate(w.precision)
            if model is not None and not self.saved(w, model):
                self.inflict(w, model, self.damage(w, model))
        return devastating


def order(weapons: list[tuple[Weapon, int]]) -> list[tuple[Weapon, int]]:
    return sorted(weapons, key=lambda e: (-e[0].damage.mean, e[0].ap, e[0].weapon_id))


def one_trial(target: TargetUnit, weapons: list[tuple[Weapon, int]], phase: Phase, scenario: Scenario,
              dice: Dice6) -> tuple[int, int]:  # fmt: skip
    """(models slain, wounds lost) of one attack by the whole unit."""
    battle = Battle(target, phase, scenario, dice)
    deferred = [(w, battle.fire(w, uses)) for w, uses in order(weapons)]
    for w, count in deferred:
        for _ in range(count):
            model = battle.allocate(w.precision)
            if model is not None:
                battle.inflict(w, model, battle.damage(w, model))
    slain = sum(m.wounds_left == 0 for m in battle.models)
    lost = sum(m.profile.wounds - m.wounds_left for m in battle.models)
    return slain, lost


def simulate(target: TargetUnit, weapons: list[tuple[Weapon, int]], phase: Phase, scenario: Scenario,
             trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per-trial models slain and wounds lost."""
    dice = Dice6(seed)
    results = np.array([one_trial(target, weapons, phase, scenario, dice) for _ in range(trials)])
    return results[:, 0], results[:, 1]
