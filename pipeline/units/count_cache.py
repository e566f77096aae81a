"""Wound-count pmfs shared by every engine of a process: across batches, partitions and scenarios.

A count pmf reads the count key (`counts.count_key`: the hit chances, the wound
roll needed per Strength value, the critical threshold, Blast's bonus), a few more
fields of the weapon (`COUNT_FIELDS`) and, at half range, Rapid Fire. Keyed on
exactly that, profiles that differ only in what a wound does afterwards (AP,
Damage, Melta...) share their counts, and so do the scenarios that leave them
unchanged (cover, and any rule the weapon lacks). The values are the ones
`counts.wound_counts` computes, the same arithmetic. Docs: `docs/units.md`, "Counts shared across engines".
"""

from __future__ import annotations

import numpy as np

from pipeline.units.counts import (
    FloatArray,
    WoundContext,
    attack_outcome,
    attacks_per_model,
    can_attack,
    mixture_of_powers,
    power,
)
from pipeline.units.model import Weapon
from schemas.dice import Dice

COUNT_FIELDS = ("attacks", "strength", "sustained_hits", "lethal_hits", "devastating_wounds", "twin_linked")
"""The weapon fields the wound counts read beyond the count key, which already holds the rest: skill, Torrent,
ranged, Heavy, Indirect Fire (the hit chances), Lance and Strength's values (the wound roll needed per value;
Strength's weights are here), Anti (the critical threshold), Blast (its bonus, 0 without Blast). Rapid Fire is
read only at half range (added to the key there)."""

LIMIT = 1 << 16
"""Pmfs kept per table before it is emptied (a few KB each: a bound on memory, never reached on the corpus)."""

CountKey = tuple[object, ...]


class SharedCounts:
    """Per-model pmfs and their powers per uses, keyed by what they read."""

    def __init__(self, fields: tuple[str, ...] = COUNT_FIELDS, limit: int = LIMIT) -> None:
        self.fields = fields
        self.limit = limit
        self._weapons: dict[Weapon, tuple[object, ...]] = {}
        self._outcome_fields: dict[Weapon, tuple[object, ...]] = {}
        self._per_model: dict[CountKey, FloatArray] = {}
        self._outcomes: dict[CountKey, tuple[FloatArray, list[FloatArray]]] = {}
        self._counts: dict[tuple[CountKey, int], FloatArray] = {}

    def wound_counts(self, weapon: Weapon, uses: int, ctx: WoundContext, ckey: CountKey) -> FloatArray:
        """`counts.wound_counts(weapon, uses, ctx)` given its count key `ckey` (`counts.count_key`)."""
        if not can_attack(weapon, ctx.scenario):
            return np.ones((1, 1))
        rapid_fire = weapon.rapid_fire if ctx.scenario.half_range else None
        base = (
            self._fields(weapon),
            ckey,
            None if rapid_fire is None else (rapid_fire.n, rapid_fire.sides, rapid_fire.plus),
        )
        found = self._counts.get((base, uses))
        if found is None:
            per_model = self._per_model.get(base)
            if per_model is None:
                per_model = _read_only(self._mixture(weapon, ctx, (self._outcome_fields[weapon], ckey[:3])))
                self._per_model[base] = per_model
            found = _read_only(power(per_model, uses))
            self._counts[(base, uses)] = found
            self._bound()
        return found

    def _mixture(self, weapon: Weapon, ctx: WoundContext, outcome_key: CountKey) -> FloatArray:
        """One model's pmf; the outcome of one attack and its powers are shared by every attack dice with that
        outcome (its key: the fields but the attacks, the count key but Blast's bonus, which only the attacks
        read)."""
        found = self._outcomes.get(outcome_key)
        if found is None:
            found = self._outcomes[outcome_key] = (attack_outcome(weapon, ctx), [np.ones((1, 1))])
        outcome, powers = found
        return mixture_of_powers(attacks_per_model(weapon, ctx), outcome, powers)

    def _fields(self, weapon: Weapon) -> tuple[object, ...]:
        """The weapon as the counts read it (dice as plain tuples: cheaper to hash than the models)."""
        found = self._weapons.get(weapon)
        if found is None:
            values = (getattr(weapon, name) for name in self.fields)
            found = self._weapons[weapon] = tuple((v.n, v.sides, v.plus) if isinstance(v, Dice) else v for v in values)
            self._outcome_fields[weapon] = tuple(v for n, v in zip(self.fields, found, strict=True) if n != "attacks")
        return found

    def _bound(self) -> None:
        if max(len(self._counts), len(self._per_model), len(self._outcomes), len(self._weapons)) > self.limit:
            self.clear()

    def clear(self) -> None:
        self._counts.clear()
        self._per_model.clear()
        self._outcomes.clear()
        self._weapons.clear()
        self._outcome_fields.clear()

    def __len__(self) -> int:
        return len(self._counts)


def _read_only(pmf: FloatArray) -> FloatArray:
    """Shared by every engine of the process: an accidental in-place write raises instead of corrupting them."""
    pmf.setflags(write=False)
    return pmf


SHARED = SharedCounts()
"""The process's table (forked workers inherit what the parent computed)."""
