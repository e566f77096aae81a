"""Two-line jobs (an attached unit facing Precision): each job's leading run of steps of one kind on one line.

From "nothing lost", normal attacks fall on the Bodyguard until it is gone, then on the Leader: the one-line
order Bodyguard then Leader, whose state s is the two-line state (s, 0) while s <= the Bodyguard's wounds B
and (B, s - B) after. Precision attacks fall on the Leader until it is gone, then on the Bodyguard: the
one-line order Leader then Bodyguard, s -> (0, s) while s <= the Leader's wounds L, (s - L, L) after. So a
job's first steps, while they are all normal or all Precision, run on that one-line layout (fewer states),
their pending devastating axes unchanged, and their end states are mapped onto the two lines (docs/units.md).
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
    defs: Defences, flats: tuple[Defences, Defences], steps: BatchSteps, job_defence: IntArray, chains: IntArray,
    distributions: bool,
) -> Summary:  # fmt: skip
    """`tree.solve_tree` of a two-line batch (`defs`); `flats`: the same defences' one-line layouts, Bodyguard
    first and Leader first, for each job's leading run of normal or of Precision steps."""
    run = leading_run(steps.precise, chains)
    prefix = np.where(np.arange(chains.shape[1])[None, :] < run[:, None], chains, -1)
    leader_first = (chains[:, 0] >= 0) & steps.precise[chains[:, 0]]
    registry: tuple[list[tuple[int, ...]], dict[tuple[int, int], int]] = ([()], {})
    parts: list[tuple[IntArray, Tree, Store, IntArray, IntArray]] = []
    for kind, flat in enumerate(flats):
        rows = np.flatnonzero(leader_first == bool(kind))
        if len(rows):
            tree, store = roots(flat, registry)
            ends = grow(flat, replace(steps, caches={}), tree, store, job_defence[rows], prefix[rows])
            parts.append((rows, tree, store, ends, two_line_index(defs, flat, bool(kind))))
    tree, store, current = _mapped_roots(defs, registry, parts, len(chains))
    current = grow(defs, steps, tree, store, current, suffix(chains, run))
    return leaves(defs, steps, tree, store, current, distributions)


def leading_run(precise: np.ndarray, chains: IntArray) -> IntArray:
    """Per chain, how many of its first steps share the first step's Precision flag."""
    valid = chains >= 0
    differs = ~valid | (precise[chains] != precise[chains[:, :1]])
    result: IntArray = np.where(differs.any(axis=1), np.argmax(differs, axis=1), chains.shape[1])
    return result


def suffix(chains: IntArray, first: IntArray) -> IntArray:
    """Each chain from column `first` on, moved to column 0 (-1 padded)."""
    columns = np.arange(chains.shape[1])[None, :] + first[:, None]
    taken = np.take_along_axis(chains, np.minimum(columns, chains.shape[1] - 1), axis=1)
    result: IntArray = np.where(columns < chains.shape[1], taken, -1)
    return result


def two_line_index(defs: Defences, flat: Defences, leader_first: bool) -> IntArray:
    """[defence, one-line state] -> two-line flat state; states past the unit's wounds -> `defs.size` (scratch)."""
    body = np.array([sum(g.count * g.wounds for g in t.groups) for t in defs.targets], dtype=np.int64)[:, None]
    leader = defs.stride - 1
    state = np.arange(flat.size, dtype=np.int64)[None, :]
    if leader_first:
        index = np.where(state <= leader, state, (state - leader) * defs.stride + leader)
        valid = state - leader <= body
    else:
        index = np.where(state <= body, state * defs.stride, body * defs.stride + state - body)
        valid = state - body <= leader
    result: IntArray = np.where(valid, index, defs.size)
    return result


def mapped(states: FloatArray, index: IntArray, size: int) -> FloatArray:
    """One-line states [nodes, pending, S1] placed at their two-line index [nodes, S1] in [nodes, pending, size]."""
    out = np.zeros((*states.shape[:2], size + 1))
    np.put_along_axis(out, np.broadcast_to(index[:, None, :], states.shape), states, axis=2)
    return np.ascontiguousarray(out[:, :, :size])


def _mapped_roots(
    defs: Defences, registry: tuple[list[tuple[int, ...]], dict[tuple[int, int], int]],
    parts: list[tuple[IntArray, Tree, Store, IntArray, IntArray]], n_jobs: int,
) -> tuple[Tree, Store, IntArray]:  # fmt: skip
    """The prefix trees' end nodes as the roots of the two-line tree (pending patterns and axes kept)."""
    width = max(t.axes.shape[1] for _, t, _, _, _ in parts)
    defence, pattern, axes, current = [], [], [], np.zeros(n_jobs, dtype=np.int64)
    chosen: list[IntArray] = []
    offset = 0
    for rows, tree, _, ends, _ in parts:
        nodes, inverse = np.unique(ends, return_inverse=True)
        chosen.append(nodes)
        current[rows] = offset + inverse
        offset += len(nodes)
        defence.append(tree.defence[nodes])
        pattern.append(tree.pattern[nodes])
        axes.append(np.pad(tree.axes[nodes], ((0, 0), (0, width - tree.axes.shape[1])), constant_values=-1))
    joined = Tree(np.concatenate(defence), np.concatenate(pattern), np.concatenate(axes), *registry)
    store = Store()
    store.grow(offset)
    offset = 0
    for (_, tree, flat_store, _, index), nodes in zip(parts, chosen, strict=True):
        for p in np.unique(tree.pattern[nodes]).tolist():
            members = np.flatnonzero(tree.pattern[nodes] == p)
            states = flat_store.gather(nodes[members])
            store.add(offset + members, mapped(states, index[tree.defence[nodes[members]]], defs.size))
        offset += len(nodes)
    return joined, store, current
