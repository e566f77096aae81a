"""Two-line jobs (an attached unit facing Precision): the steps before the first Precision step run on one line.

Until a Precision attack is resolved, every attack falls on the Bodyguard until it is gone, then on the Leader:
the one-line order Bodyguard then Leader, whose state s is the two-line state (s, 0) while s <= the Bodyguard's
wounds B and (B, s - B) after. So that prefix runs on the one-line layout (fewer states), its pending
devastating axes unchanged, and its end states are mapped onto the two lines (docs/units.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pipeline.units.counts import FloatArray
from pipeline.units.layout import IntArray
from pipeline.units.results import Summary
from pipeline.units.tables import Defences
from pipeline.units.tree import BatchSteps, Store, Tree, grow, leaves, roots


def solve_two_lines(
    defs: Defences, flat: Defences, steps: BatchSteps, job_defence: IntArray, chains: IntArray, distributions: bool
) -> Summary:
    """`tree.solve_tree` of a two-line batch (`defs`), each job's steps before its first Precision step on the
    same defences' one-line layouts (`flat`)."""
    first = first_precise(steps.precise, chains)
    prefix = np.where(np.arange(chains.shape[1])[None, :] < first[:, None], chains, -1)
    flat_tree, flat_store = roots(flat)
    ends = grow(flat, replace(steps, caches={}), flat_tree, flat_store, job_defence.copy(), prefix)
    tree, store, current = _mapped_roots(defs, flat, flat_tree, flat_store, ends)
    current = grow(defs, steps, tree, store, current, suffix(chains, first))
    return leaves(defs, steps, tree, store, current, distributions)


def first_precise(precise: np.ndarray, chains: IntArray) -> IntArray:
    """Per chain, the column of its first Precision step (0 when it has none)."""
    result: IntArray = np.argmax((chains >= 0) & precise[chains], axis=1)
    return result


def suffix(chains: IntArray, first: IntArray) -> IntArray:
    """Each chain from column `first` on, moved to column 0 (-1 padded)."""
    columns = np.arange(chains.shape[1])[None, :] + first[:, None]
    taken = np.take_along_axis(chains, np.minimum(columns, chains.shape[1] - 1), axis=1)
    result: IntArray = np.where(columns < chains.shape[1], taken, -1)
    return result


def two_line_index(defs: Defences, flat: Defences) -> IntArray:
    """[defence, one-line state] -> two-line flat state; states past the unit's wounds -> `defs.size` (scratch)."""
    body = np.array([sum(g.count * g.wounds for g in t.groups) for t in defs.targets], dtype=np.int64)[:, None]
    state = np.arange(flat.size, dtype=np.int64)[None, :]
    index = np.where(state <= body, state * defs.stride, body * defs.stride + state - body)
    result: IntArray = np.where(state - body < defs.stride, index, defs.size)
    return result


def mapped(states: FloatArray, index: IntArray, size: int) -> FloatArray:
    """One-line states [nodes, pending, S1] placed at their two-line index [nodes, S1] in [nodes, pending, size]."""
    out = np.zeros((*states.shape[:2], size + 1))
    np.put_along_axis(out, np.broadcast_to(index[:, None, :], states.shape), states, axis=2)
    return np.ascontiguousarray(out[:, :, :size])


def _mapped_roots(
    defs: Defences, flat: Defences, flat_tree: Tree, flat_store: Store, ends: IntArray
) -> tuple[Tree, Store, IntArray]:
    """The prefix tree's end nodes as the roots of the two-line tree (pending patterns and axes kept)."""
    nodes, current = np.unique(ends, return_inverse=True)
    tree = Tree(
        flat_tree.defence[nodes], flat_tree.pattern[nodes], flat_tree.axes[nodes], flat_tree.patterns,
        flat_tree.pattern_ids,
    )  # fmt: skip
    store = Store()
    store.grow(len(nodes))
    index = two_line_index(defs, flat)
    for pattern in np.unique(tree.pattern).tolist():
        members = np.flatnonzero(tree.pattern == pattern)
        states = flat_store.gather(nodes[members])
        store.add(members, mapped(states, index[tree.defence[members]], defs.size))
    return tree, store, current.astype(np.int64)
