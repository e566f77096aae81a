"""The target unit's state space as a flat index: one line of wounds lost, or Bodyguard x Leader lines when
Precision can pick the Leader (docs/units.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pipeline.units.model import ModelGroup

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

NONE = -1
"""Group index of a state in which no model can take the attack (the line is wiped)."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of models: per state (wounds lost) the receiving group, its remaining wounds, the dead."""

    group: IntArray
    remaining: IntArray
    slain: IntArray
    slain_by_group: FloatArray  # [state, group]: models of that group dead

    @property
    def states(self) -> int:
        return len(self.group)


def line(groups: tuple[ModelGroup, ...], first_group: int, n_groups: int, states: int) -> Line:
    """The line of `groups` (group indices from `first_group`), padded to `states` states."""
    group = np.full(states, NONE, dtype=np.int64)
    remaining = np.zeros(states, dtype=np.int64)
    slain = np.zeros(states, dtype=np.int64)
    by_group = np.zeros((states, n_groups))
    position, dead = 0, 0
    for offset, g in enumerate(groups):
        index = first_group + offset
        for _ in range(g.count):
            span = slice(position, position + g.wounds)
            group[span] = index
            remaining[span] = np.arange(g.wounds, 0, -1)
            slain[span] = dead
            by_group[position + g.wounds :, index] += 1
            position += g.wounds
            dead += 1
    slain[position:] = dead
    return Line(group, remaining, slain, by_group)


@dataclass(frozen=True, slots=True)
class Allocation:
    """Where one kind of attack (normal or Precision) lands from each flat state."""

    group: IntArray
    remaining: IntArray
    leader: BoolArray  # True: the receiving model is on the Leader line (stride 1)


@dataclass(frozen=True, slots=True)
class StateLayout:
    """Flat state arrays of one target in a batch's padded shape."""

    stride: int
    normal: Allocation
    precision: Allocation
    slain: IntArray
    wounds: IntArray
    slain_by_group: FloatArray


def one_line_layout(body: tuple[ModelGroup, ...], leader: tuple[ModelGroup, ...], states: int) -> StateLayout:
    """Bodyguard then Leader on one line: every attack follows the same order."""
    groups = body + leader
    ln = line(groups, 0, len(groups), states)
    alloc = Allocation(ln.group, ln.remaining, np.zeros(states, dtype=bool))
    return StateLayout(1, alloc, alloc, ln.slain, np.arange(states, dtype=np.int64), ln.slain_by_group)


def two_line_layout(
    body: tuple[ModelGroup, ...], leader: tuple[ModelGroup, ...], body_states: int, leader_states: int
) -> StateLayout:
    """Bodyguard line x Leader line: normal attacks hit the Bodyguard first, Precision the Leader first."""
    n = len(body) + len(leader)
    b = line(body, 0, n, body_states)
    ld = line(leader, len(body), n, leader_states)
    bg, lg = np.repeat(b.group, leader_states), np.tile(ld.group, body_states)
    br, lr = np.repeat(b.remaining, leader_states), np.tile(ld.remaining, body_states)
    body_alive, leader_alive = bg != NONE, lg != NONE
    normal = Allocation(np.where(body_alive, bg, lg), np.where(body_alive, br, lr), ~body_alive & leader_alive)
    precision = Allocation(np.where(leader_alive, lg, bg), np.where(leader_alive, lr, br), leader_alive)
    slain = np.add.outer(b.slain, ld.slain).ravel()
    wounds = np.add.outer(np.arange(body_states), np.arange(leader_states)).ravel()
    by_group = (b.slain_by_group[:, None, :] + ld.slain_by_group[None, :, :]).reshape(-1, n)
    return StateLayout(leader_states, normal, precision, slain, wounds, by_group)
