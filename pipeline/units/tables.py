"""Per-batch tables of the prefix-tree solver: loss pmfs per (weapon, model group) and kernels per combo.

A batch holds many defences of one state shape. Loss pmfs are built for every
(weapon, group) of the batch at once: the save roll as one numpy expression
(`save_fail_table`), the damage pmf after modifiers and Feel No Pain once per
distinct (damage dice, Melta) x (reduction, halve, FNP) key. Kernels (the
per-wound transition of one weapon against one defence) are built only for the
combos a group of tree nodes needs, then gathered per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from pipeline.damage.scenarios import Scenario
from pipeline.units.counts import FloatArray
from pipeline.units.layout import BoolArray, IntArray, StateLayout
from pipeline.units.losses import (
    damage_after_modifiers,
    damage_key,
    feel_no_pain,
    group_damage_key,
    save_fail_table,
)
from pipeline.units.model import ModelGroup, Phase, TargetUnit, Weapon
from pipeline.units.solve import Kernel, capped_kernel

_T = TypeVar("_T")


class LostCache:
    """Wounds lost by one unsaved wound (after modifiers and FNP), per (damage key, group damage key)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._pmfs: dict[tuple[object, ...], FloatArray] = {}

    def lost(self, weapon: Weapon, group: ModelGroup) -> FloatArray:
        key = (damage_key(weapon, self.scenario), group_damage_key(group))
        if key not in self._pmfs:
            self._pmfs[key] = feel_no_pain(damage_after_modifiers(weapon, group, self.scenario), group.fnp)
        return self._pmfs[key]


def loss_tables(
    cache: LostCache, weapons: Sequence[Weapon], groups: Sequence[ModelGroup], phase: Phase
) -> tuple[FloatArray, FloatArray]:
    """(normal, devastating) loss pmfs [W, G + 1, J]; row G is "nobody left" (never moves)."""
    if not weapons:
        return np.zeros((0, len(groups) + 1, 1)), np.zeros((0, len(groups) + 1, 1))
    fails = save_fail_table(weapons, groups, phase, cache.scenario)
    weapon_ids, weapon_reps = _key_ids([damage_key(w, cache.scenario) for w in weapons], weapons)
    group_ids, group_reps = _key_ids([group_damage_key(g) for g in groups], groups)
    pairs = weapon_ids[:, None] * len(group_reps) + group_ids[None, :]
    unique, pair_ids = np.unique(pairs, return_inverse=True)
    pmfs = [cache.lost(weapon_reps[u // len(group_reps)], group_reps[u % len(group_reps)]) for u in unique.tolist()]
    width = max(len(p) for p in pmfs)
    lost_rows = np.zeros((len(pmfs), width))
    for row, pmf in enumerate(pmfs):
        lost_rows[row, : len(pmf)] = pmf
    lost = lost_rows[pair_ids.reshape(pairs.shape)]
    normal = fails[:, :, None] * lost
    normal[:, :, 0] += 1 - fails
    return _with_nobody(normal), _with_nobody(lost)


def _key_ids(keys: Sequence[tuple[object, ...]], items: Sequence[_T]) -> tuple[IntArray, list[_T]]:
    """Integer id per key (first seen first) and one representative item per id."""
    ids: dict[tuple[object, ...], int] = {}
    reps: list[_T] = []
    out = np.zeros(len(keys), dtype=np.int64)
    for i, (key, item) in enumerate(zip(keys, items, strict=True)):
        if key not in ids:
            ids[key] = len(reps)
            reps.append(item)
        out[i] = ids[key]
    return out, reps


def _with_nobody(table: FloatArray) -> FloatArray:
    out = np.zeros((table.shape[0], table.shape[1] + 1, table.shape[2]))
    out[:, :-1] = table
    out[:, -1, 0] = 1.0
    return out


@dataclass(frozen=True, slots=True)
class Allocations:
    """Per defence and state: the receiving group (batch index; G = nobody), its remaining wounds, leader line."""

    group: IntArray  # [D, S]
    remaining: IntArray  # [D, S]
    leader: BoolArray  # [D, S]


@dataclass(frozen=True, slots=True)
class Defences:
    """The batch's defences in one padded state shape, as the steps allocate to them (the summaries read
    `Views`)."""

    targets: list[TargetUnit]
    groups: list[ModelGroup]
    normal: Allocations
    precision: Allocations
    stride: int
    two_lines: bool

    @property
    def size(self) -> int:
        return int(self.normal.group.shape[1])


def defences(targets: list[TargetUnit], layouts: list[StateLayout], two_lines: bool) -> Defences:
    """Stack the layouts; local group indices become batch group indices."""
    index: dict[ModelGroup, int] = {}
    local = [[index.setdefault(g, len(index)) for g in t.all_groups] for t in targets]
    nobody = len(index)

    def stack(kind: str) -> Allocations:
        allocs = [getattr(lay, kind) for lay in layouts]
        group = np.stack(
            [
                np.where(a.group >= 0, np.asarray([*ids, nobody])[a.group], nobody)
                for a, ids in zip(allocs, local, strict=True)
            ]
        )
        return Allocations(group, np.stack([a.remaining for a in allocs]), np.stack([a.leader for a in allocs]))

    return Defences(targets, list(index), stack("normal"), stack("precision"), layouts[0].stride, two_lines)


@dataclass(frozen=True, slots=True)
class Views:
    """What the summaries read of the defences they are for, in a batch's padded state shape: a smaller member
    of a family reads its representative's states (beyond its own wipe: all dead, wounds lost capped)."""

    slain: IntArray  # [V, S]
    by_group: FloatArray  # [V, S, max groups]
    wounds: FloatArray  # [V, S] wounds lost, capped at the defence's total
    models: IntArray  # [V]
    total: IntArray  # [V] the defence's wounds (its wipe state)
    width: IntArray  # [V] states its summary needs: its own padded states (<= S)


def views(targets: list[TargetUnit], layouts: list[StateLayout], widths: list[int]) -> Views:
    """The targets' layouts in the batch's shape, wounds lost capped at each target's wounds; `widths`: each
    target's own padded states."""
    width = max(len(t.all_groups) for t in targets)
    by_group = np.zeros((len(targets), layouts[0].slain.shape[0], width))
    for d, lay in enumerate(layouts):
        by_group[d, :, : lay.slain_by_group.shape[1]] = lay.slain_by_group
    total = np.array([t.total_wounds for t in targets], dtype=np.int64)
    wounds = np.minimum(np.stack([lay.wounds for lay in layouts]), total[:, None]).astype(np.float64)
    slain = np.stack([lay.slain for lay in layouts])
    models = np.array([t.models for t in targets], dtype=np.int64)
    return Views(slain, by_group, wounds, models, total, np.minimum(widths, slain.shape[1]).astype(np.int64))


def kernels(
    table: FloatArray, tails: FloatArray, weapon: IntArray, defence: IntArray, alloc: Allocations, defs: Defences
) -> Kernel:
    """Kernels for (weapon index, defence index) combos from a loss table [W, G + 1, J] and its tails (P(loss
    >= j), `loss_tails`, gathered per state instead of summed per state)."""
    group, remaining = alloc.group[defence], alloc.remaining[defence]
    losses = table[weapon[:, None], group]
    at_cap = tails[weapon[:, None], group, np.minimum(remaining, table.shape[2] - 1)]
    return capped_kernel(losses, remaining, alloc.leader[defence], defs.stride, defs.two_lines, at_cap)


def loss_tails(table: FloatArray) -> FloatArray:
    """P(loss >= j) per (weapon, group) of a loss table [W, G + 1, J]."""
    result: FloatArray = np.ascontiguousarray(
        np.cumsum(table[:, :, ::-1], axis=2)[:, :, ::-1]
    )  # compiled loops read it
    return result


def take(kernel: Kernel, rows: IntArray) -> Kernel:
    """The kernels of `rows` (a gather along the batch axis)."""
    leader = kernel.leader[:, rows] if kernel.leader is not None else None
    return Kernel(kernel.stay[rows], kernel.body[:, rows], leader, kernel.stride)
