"""The prefix-tree solver: every distinct job of a batch of defences, weapon steps shared by common prefix.

Jobs against the same defence whose first k steps are equal have the same state
distribution after those k steps, so the steps of all jobs of a batch form a
tree (one root per defence) and each tree node is one weapon step applied to
its parent's distribution. Nodes of one depth are propagated together, grouped
by pending shape (devastating axes) and wound-count length, in chunks that stay
in cache. Leaves resolve their pending devastating wounds and are summarised;
a job is its leaf. Docs: `docs/units.md`, "Prefix tree".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pipeline.units import loops
from pipeline.units.counts import FloatArray
from pipeline.units.layout import IntArray
from pipeline.units.model import Weapon
from pipeline.units.results import Summary, merge, summarise_states
from pipeline.units.solve import Kernel, Step, resolve_devastating, run_step
from pipeline.units.tables import Defences, Views, kernels, loss_tails, take

CHUNK_CELLS = 1 << 16
"""Nodes x pending combinations x states per chunk: small enough to stay in cache."""

BLAS_COST = 0.15
"""Cost of one multiply-add in a BLAS matrix product, relative to one cell of a numpy chain step."""

_BUCKETS = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1 << 20])


def bucket(values: IntArray) -> IntArray:
    """Round up to the next bucket (ratio <= 1.5): rows of one chunk share a padded length."""
    result: IntArray = _BUCKETS[np.searchsorted(_BUCKETS, values)]
    return result


class PmfShapes:
    """(wound counts, devastating counts) per count pmf id, as an array that grows with the engine's pmf list."""

    def __init__(self, pmfs: list[FloatArray]) -> None:
        self.pmfs = pmfs
        self.table = np.zeros((1024, 2), dtype=np.int64)
        self.filled = 0

    def __call__(self, ids: IntArray) -> IntArray:
        if len(ids) and int(ids.max()) >= self.filled:
            new = np.array([p.shape for p in self.pmfs[self.filled :]], dtype=np.int64).reshape(-1, 2)
            if self.filled + len(new) > len(self.table):  # capacity doubles: appends stay amortised O(1)
                grown = np.zeros((2 * (self.filled + len(new)), 2), dtype=np.int64)
                grown[: self.filled] = self.table[: self.filled]
                self.table = grown
            self.table[self.filled : self.filled + len(new)] = new
            self.filled += len(new)
        result: IntArray = self.table[ids]
        return result


@dataclass(frozen=True, slots=True)
class BatchSteps:
    """The steps the batch uses, by local index: weapon index, Precision, count ids per (step, defence)."""

    weapon: IntArray  # [steps] index into `weapons`
    uses: IntArray  # [steps]
    precise: np.ndarray  # [steps] bool
    weapons: list[Weapon]
    count_ids: Callable[[IntArray, IntArray, bool], IntArray]  # (steps, defences, one use only) -> pmf ids
    pmfs: list[FloatArray]  # count pmf by id, [normal, devastating]
    normal: FloatArray  # loss table [W, G + 1, J]
    devastating: FloatArray  # loss table [W, G + 1, J]
    shapes: PmfShapes
    bands: dict[int, IntArray] = field(default_factory=dict)
    caches: dict[int, KernelCache] = field(default_factory=dict)
    tail_tables: dict[int, FloatArray] = field(default_factory=dict)

    def kernel_cache(self, table: FloatArray, combos: int) -> KernelCache:
        if id(table) not in self.caches:
            self.caches[id(table)] = KernelCache(np.full(combos, -1, dtype=np.int64), np.zeros(combos, dtype=np.int64))
        return self.caches[id(table)]

    def tails(self, table: FloatArray) -> FloatArray:
        """`loss_tails` of a loss table, once per batch."""
        if id(table) not in self.tail_tables:
            self.tail_tables[id(table)] = loss_tails(table)
        return self.tail_tables[id(table)]

    def band(self, table: FloatArray) -> IntArray:
        """Per weapon: 1 + the largest loss it can cause (the kernel's band before the cap)."""
        if id(table) not in self.bands:
            nonzero = np.any(table > 0, axis=1)  # [W, J]
            self.bands[id(table)] = table.shape[2] - np.argmax(nonzero[:, ::-1], axis=1)
        return self.bands[id(table)]


@dataclass(slots=True)
class Store:
    """Node state arrays [nodes, pending, states], found by node id."""

    arrays: list[FloatArray] = field(default_factory=list)
    array_of: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    row_of: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def grow(self, nodes: int) -> None:
        self.array_of = np.concatenate([self.array_of, np.full(nodes, -1, dtype=np.int64)])
        self.row_of = np.concatenate([self.row_of, np.zeros(nodes, dtype=np.int64)])

    def add(self, nodes: IntArray, states: FloatArray) -> None:
        self.array_of[nodes] = len(self.arrays)
        self.row_of[nodes] = np.arange(len(nodes))
        self.arrays.append(states)

    def gather(self, nodes: IntArray) -> FloatArray:
        which, rows = self.array_of[nodes], self.row_of[nodes]
        first = int(which[0])
        if np.all(which == first):
            result: FloatArray = self.arrays[first][rows]
            return result
        shape = self.arrays[first].shape[1:]
        out = np.empty((len(nodes), *shape))
        for a in np.unique(which).tolist():
            mask = which == a
            out[mask] = self.arrays[a][rows[mask]]
        return out


@dataclass(slots=True)
class Tree:
    """Node attributes: defence, pending pattern id, devastating combos per pending axis."""

    defence: IntArray
    pattern: IntArray
    axes: IntArray  # [nodes, max steps] combo = weapon * defences + defence, -1 unused
    patterns: list[tuple[int, ...]]
    pattern_ids: dict[tuple[int, int], int]
    operators: dict[int, tuple[int, int]] = field(default_factory=dict)  # op key -> (pending, row)
    matrices: dict[int, list[FloatArray]] = field(default_factory=dict)  # pending -> [ops, C, S, S] chunks

    def extend(self, parent: IntArray, pending: IntArray, combos: IntArray) -> None:
        pairs, inverse = np.unique(self.pattern[parent] * 4096 + pending, return_inverse=True)
        children = np.array([self._child(u // 4096, u % 4096) for u in pairs.tolist()], dtype=np.int64)
        pattern = children[inverse]
        axes = self.axes[parent].copy()
        grows = pending > 1
        lengths = np.array([len(p) for p in self.patterns], dtype=np.int64)
        depth = lengths[self.pattern[parent]]
        axes[np.flatnonzero(grows), depth[grows]] = combos[grows]
        self.defence = np.concatenate([self.defence, self.defence[parent]])
        self.pattern = np.concatenate([self.pattern, pattern])
        self.axes = np.concatenate([self.axes, axes])

    def _child(self, parent: int, pending: int) -> int:
        key = (parent, pending)
        if key not in self.pattern_ids:
            self.pattern_ids[key] = len(self.patterns)
            self.patterns.append(self.patterns[parent] + ((pending,) if pending > 1 else ()))
        return self.pattern_ids[key]


def solve_tree(
    defs: Defences, steps: BatchSteps, job_defence: IntArray, chains: IntArray, views: Views, job_view: IntArray,
    distributions: bool = True, operators: bool = True,
) -> Summary:  # fmt: skip
    """Summary per job (rows in job order) of jobs = (defence index, chain of local step ids, -1 padded), each
    summarised for its view (index into `views`: the defence itself, or a smaller member of its family).
    Without `operators` every node is a chain step: a node's numbers then depend only on its path (parent,
    step, defence), never on how many other nodes of the batch share its operator."""
    n_def, size = len(defs.targets), defs.size
    tree = Tree(np.arange(n_def), np.zeros(n_def, dtype=np.int64), np.full((n_def, chains.shape[1]), -1), [()], {})
    store = Store()
    store.grow(n_def)
    start = np.zeros((n_def, 1, size))
    start[:, 0, 0] = 1.0
    store.add(np.arange(n_def), start)
    current = job_defence.copy()
    n_steps = max(1, len(steps.weapon))
    for level in range(chains.shape[1]):
        active = np.flatnonzero(chains[:, level] >= 0)
        if not len(active):
            break
        unique, inverse = np.unique(current[active] * n_steps + chains[active, level], return_inverse=True)
        first = len(tree.defence)
        current[active] = first + inverse
        _grow_level(defs, steps, tree, store, unique // n_steps, unique % n_steps, operators)
    return _leaves(defs, steps, tree, store, current, views, job_view, distributions)


def _grow_level(
    defs: Defences, steps: BatchSteps, tree: Tree, store: Store, parent: IntArray, step: IntArray, operators: bool
) -> None:
    """Add the nodes (parent, step) of one depth and compute their states (chain, or dense operator when
    `operators` and the cost model says it pays)."""
    first, n_def = len(tree.defence), len(defs.targets)
    defence = tree.defence[parent]
    count_ids = steps.count_ids(step, defence, False)
    shape = steps.shapes(count_ids)
    lengths, pending = bucket(shape[:, 0]), bucket(shape[:, 1])
    parent_pattern = tree.pattern[parent]
    vectors = np.array([int(np.prod(p, initial=1)) for p in tree.patterns], dtype=np.int64)[parent_pattern]
    tree.extend(parent, pending, steps.weapon[step] * n_def + defence)
    store.grow(len(parent))
    node = Nodes(first, parent, step, defence, count_ids, lengths, pending, parent_pattern)
    if not operators:
        _chain_nodes(defs, steps, tree, store, node, np.arange(len(parent)))
        return
    combo = (steps.weapon[step] * n_def + defence) * 2 + (steps.precise[step] & defs.two_lines)
    op_key = count_ids * (2 * n_def * len(steps.weapons)) + combo
    _, op_of = np.unique(op_key, return_inverse=True)
    shared: FloatArray = np.bincount(op_of, weights=vectors)[op_of].astype(np.float64)
    built = np.array([k in tree.operators for k in op_key.tolist()], dtype=bool)
    dense = built | _dense_pays(defs, steps, node, shared)
    _chain_nodes(defs, steps, tree, store, node, np.flatnonzero(~dense))
    if dense.any():
        _dense_nodes(defs, steps, tree, store, node, np.flatnonzero(dense), op_key)


def _dense_pays(defs: Defences, steps: BatchSteps, node: Nodes, shared: FloatArray) -> np.ndarray:
    """Cost model: the chain costs (wounds x band x states) per vector; a matrix costs its build (the chain
    on the identity, for one use when it is raised to a power) plus one BLAS product per vector."""
    size = float(defs.size)
    band = steps.band(steps.normal)[steps.weapon[node.step]] + node.pending
    uses = steps.uses[node.step]
    powered = (node.pending == 1) & (uses > 1)
    single = np.where(powered, _single_lengths(steps, node, powered), node.lengths)
    squarings = 2 * np.ceil(np.log2(np.maximum(uses, 1)))
    build = single * band * size * size + np.where(powered, squarings * BLAS_COST * size**3, 0.0)
    chain = node.lengths * band * size * shared
    result: np.ndarray = build + BLAS_COST * node.pending * size * size * shared < chain
    return result


def _single_lengths(steps: BatchSteps, node: Nodes, rows: np.ndarray) -> IntArray:
    out = node.lengths.copy()
    where = np.flatnonzero(rows)
    if len(where):
        ids = steps.count_ids(node.step[where], node.defence[where], True)
        out[where] = bucket(steps.shapes(ids)[:, 0])
    return out


@dataclass(frozen=True, slots=True)
class Nodes:
    """The new nodes of one depth: node id = first + row."""

    first: int
    parent: IntArray
    step: IntArray
    defence: IntArray
    count_ids: IntArray
    lengths: IntArray
    pending: IntArray
    parent_pattern: IntArray


def _chain_nodes(defs: Defences, steps: BatchSteps, tree: Tree, store: Store, node: Nodes, rows: IntArray) -> None:
    """Nodes whose operator serves few vectors: the wound-by-wound chain on the parent's states."""
    band = bucket(steps.band(steps.normal)[steps.weapon[node.step[rows]]])
    keys = ((node.parent_pattern[rows] * 4096 + node.pending[rows]) * 4096 + node.lengths[rows]) * 4096 + band
    for key in np.unique(keys).tolist():
        members = rows[keys == key]
        q = int(np.prod(tree.patterns[int(node.parent_pattern[members[0]])], initial=1))
        chunk = max(1, CHUNK_CELLS // (q * int(node.pending[members[0]]) * defs.size))
        for begin in range(0, len(members), chunk):
            part = members[begin : begin + chunk]
            states = store.gather(node.parent[part])
            store.add(node.first + part, run_step(_step(defs, steps, node, part), states))


def _step(defs: Defences, steps: BatchSteps, node: Nodes, rows: IntArray) -> Step:
    counts = _padded(steps.pmfs, node.count_ids[rows], int(node.lengths[rows[0]]), int(node.pending[rows[0]]))
    if loops.ENABLED:
        return Step(counts, _chain_kernel(defs, steps, node.step[rows], node.defence[rows]), None, batch_last=True)
    return Step(counts, _kernels(defs, steps, steps.normal, node.step[rows], node.defence[rows]), None)


def _chain_kernel(defs: Defences, steps: BatchSteps, step: IntArray, defence: IntArray) -> Kernel:
    """The chunk's kernels built row by row in the layout the chain reads (`loops._chain_kernel`): copying a
    few values per state costs less than finding each distinct (weapon, defence) once and gathering it."""
    normal, precision = defs.normal, defs.precision
    stay, body, leader = loops.compiled("_chain_kernel")(
        steps.normal,
        steps.tails(steps.normal),
        steps.band(steps.normal),
        steps.weapon[step],
        defence,
        steps.precise[step] & defs.two_lines,
        normal.group,
        normal.remaining,
        normal.leader,
        precision.group,
        precision.remaining,
        precision.leader,
        bool(defs.two_lines),
    )
    return Kernel(stay, body, leader if defs.two_lines else None, defs.stride)


def _dense_nodes(
    defs: Defences, steps: BatchSteps, tree: Tree, store: Store, node: Nodes, rows: IntArray, op_key: IntArray
) -> None:
    """Nodes whose operator serves many vectors: the operator as a matrix (built once per batch), then matmul."""
    size = defs.size
    _build_operators(defs, steps, tree, node, rows, op_key)
    matrices = {c: np.concatenate(t) if len(t) > 1 else t[0] for c, t in tree.matrices.items()}
    tree.matrices = {c: [m] for c, m in matrices.items()}
    slot = np.array([tree.operators[k][1] for k in op_key[rows].tolist()], dtype=np.int64)
    keys = node.parent_pattern[rows] * 4096 + node.pending[rows]
    for key in np.unique(keys).tolist():
        members = np.flatnonzero(keys == key)
        pending = key % 4096
        q = int(np.prod(tree.patterns[key // 4096], initial=1))
        chunk = max(1, CHUNK_CELLS // (q * pending * size))
        for begin in range(0, len(members), chunk):
            part = members[begin : begin + chunk]
            states = store.gather(node.parent[rows[part]])
            mats = matrices[pending][slot[part]]  # [B, C, S, S]: row s is (M_c e_s)
            out = np.matmul(states[:, None], mats).reshape(len(part), pending * q, size)
            store.add(node.first + rows[part], out)


def _build_operators(
    defs: Defences, steps: BatchSteps, tree: Tree, node: Nodes, rows: IntArray, op_key: IntArray
) -> None:
    """Transposed step operators for the ops not built yet: M1^u by squaring when no wound is pending, else
    the u-use chain applied to the identity."""
    keys, first = np.unique(op_key[rows], return_index=True)
    missing = np.array([k not in tree.operators for k in keys.tolist()], dtype=bool)
    reps, keys = rows[first[missing]], keys[missing]
    if not len(reps):
        return
    powered = (node.pending[reps] == 1) & (steps.uses[node.step[reps]] > 1)
    single = steps.count_ids(node.step[reps], node.defence[reps], True)
    lengths = np.where(powered, bucket(steps.shapes(single)[:, 0]), node.lengths[reps])
    ids = np.where(powered, single, node.count_ids[reps])
    build = (powered * 4096 + node.pending[reps]) * 4096 + lengths
    for key in np.unique(build).tolist():
        members = np.flatnonzero(build == key)
        pending, length = key // 4096 % 4096, key % 4096
        chunk = max(1, CHUNK_CELLS // (pending * defs.size * defs.size))
        for begin in range(0, len(members), chunk):
            part = members[begin : begin + chunk]
            r = reps[part]
            counts = _padded(steps.pmfs, ids[part], length, pending)
            step = Step(counts, _kernels(defs, steps, steps.normal, node.step[r], node.defence[r]), None)
            identity = np.broadcast_to(np.eye(defs.size), (len(part), defs.size, defs.size))
            mats = run_step(step, identity).reshape(len(part), pending, defs.size, defs.size)
            if key // (4096 * 4096):
                mats = _powers(mats[:, 0], steps.uses[node.step[r]])[:, None]
            done = sum(len(m) for m in tree.matrices.get(pending, []))
            tree.matrices.setdefault(pending, []).append(mats)
            for offset, k in enumerate(keys[part].tolist()):
                tree.operators[k] = (pending, done + offset)


def _powers(base: FloatArray, exponent: IntArray) -> FloatArray:
    """base[b] ** exponent[b] by repeated squaring, the whole batch at once."""
    result = np.broadcast_to(np.eye(base.shape[1]), base.shape).copy()
    left = exponent.copy()
    while left.any():
        odd = (left & 1).astype(bool)
        if odd.any():
            result[odd] = np.matmul(result[odd], base[odd])
        left >>= 1
        if left.any():
            base = np.matmul(base, base)
    return result


def _padded(pmfs: list[FloatArray], ids: IntArray, rows: int, cols: int) -> FloatArray:
    unique, inverse = np.unique(ids, return_inverse=True)
    table = np.zeros((len(unique), rows, cols))
    for u, c in enumerate(unique.tolist()):
        pmf = pmfs[c]
        table[u, : pmf.shape[0], : pmf.shape[1]] = pmf
    result: FloatArray = table[inverse]
    return result


def _kernels(defs: Defences, steps: BatchSteps, table: FloatArray, step: IntArray, defence: IntArray) -> Kernel:
    """Kernels of (step, defence) rows, built once per batch and distinct (weapon, defence, allocation)."""
    precise = steps.precise[step] & defs.two_lines
    combos = (steps.weapon[step] * len(defs.targets) + defence) * 2 + precise
    cache = steps.kernel_cache(table, 2 * len(defs.targets) * len(steps.weapons))
    unbuilt = combos[cache.part[combos] < 0]
    if len(unbuilt):
        missing = np.unique(unbuilt)
        cache.add(missing, _build_kernels(defs, steps, table, missing))
    return cache.get(combos)


def _build_kernels(defs: Defences, steps: BatchSteps, table: FloatArray, combos: IntArray) -> Kernel:
    weapon, rest = combos // (2 * len(defs.targets)), combos % (2 * len(defs.targets))
    tails = steps.tails(table)
    table = table[:, :, : int(steps.band(table)[weapon].max(initial=1))]
    parts: list[tuple[IntArray, Kernel]] = []
    for alloc, flag in ((defs.normal, 0), (defs.precision, 1)):
        chosen = np.flatnonzero(rest % 2 == flag)
        if len(chosen):
            parts.append((chosen, kernels(table, tails, weapon[chosen], rest[chosen] // 2, alloc, defs)))
    return _combine(parts, len(combos))


@dataclass(slots=True)
class KernelCache:
    """Kernels built in this batch: per combo key its part and row (-1: not built yet)."""

    part: IntArray
    row: IntArray
    parts: list[Kernel] = field(default_factory=list)

    def add(self, combos: IntArray, kernel: Kernel) -> None:
        self.part[combos] = len(self.parts)
        self.row[combos] = np.arange(len(combos))
        self.parts.append(kernel)

    def get(self, combos: IntArray) -> Kernel:
        part, row = self.part[combos], self.row[combos]
        first = int(part[0])
        if np.all(part == first):
            return take(self.parts[first], row)
        pieces = []
        for p in np.unique(part).tolist():
            chosen = np.flatnonzero(part == p)
            pieces.append((chosen, take(self.parts[p], row[chosen])))
        return _combine(pieces, len(combos))


def _combine(parts: list[tuple[IntArray, Kernel]], n: int) -> Kernel:
    if len(parts) == 1:
        return parts[0][1]
    width = max(k.body.shape[0] for _, k in parts)
    first = parts[0][1]
    stay = np.zeros((n, first.stay.shape[1]))
    body = np.zeros((width, n, first.stay.shape[1]))
    leader = np.zeros_like(body) if first.leader is not None else None
    for rows, k in parts:
        stay[rows] = k.stay
        body[: k.body.shape[0], rows] = k.body
        if leader is not None and k.leader is not None:
            leader[: k.leader.shape[0], rows] = k.leader
    return Kernel(stay, body, leader, first.stride)


def _leaves(
    defs: Defences, steps: BatchSteps, tree: Tree, store: Store, current: IntArray, views: Views, job_view: IntArray,
    distributions: bool,
) -> Summary:  # fmt: skip
    """Resolve each leaf's pending devastating wounds, summarise per distinct (leaf, view), map back to jobs."""
    leaves, job_leaf = np.unique(current, return_inverse=True)
    final = np.zeros((len(leaves), defs.size))
    patterns = tree.pattern[leaves]
    for p in np.unique(patterns).tolist():
        members = np.flatnonzero(patterns == p)
        sizes = list(tree.patterns[p])
        per_node = int(np.prod(sizes, initial=1)) * defs.size
        chunk = max(1, CHUNK_CELLS // per_node)
        for begin in range(0, len(members), chunk):
            rows = members[begin : begin + chunk]
            nodes = leaves[rows]
            states = store.gather(nodes)
            axes = [_dev_kernels(defs, steps, tree.axes[nodes, i]) for i in range(len(sizes))]
            final[rows] = resolve_devastating(axes, sizes, states)[:, 0, :]
    n_views = len(views.models)
    combos, job_row = np.unique(job_leaf * n_views + job_view, return_inverse=True)
    leaf, view = combos // n_views, combos % n_views
    summary = _view_summaries(final, leaf, view, views)
    return Summary(
        summary.slain_dist[job_row] if distributions else np.zeros((len(job_row), 0)),
        summary.models[job_row],
        summary.slain_by_group[job_row],
        summary.wounds_lost[job_row],
        summary.stats[job_row],
    )


def _view_summaries(final: FloatArray, leaf: IntArray, view: IntArray, views: Views) -> Summary:
    """Summaries of (leaf, view) rows; a smaller family member's rows are lumped onto its own padded states
    first (its wipe state takes the mass beyond it), so that they cost what they cost before the family."""
    width = views.width[view]
    parts: list[tuple[IntArray, Summary]] = []
    for w in np.unique(width).tolist():
        rows = np.flatnonzero(width == w)
        states, v = final[leaf[rows]], view[rows]
        if w < states.shape[1]:
            end, index = views.total[v], np.arange(len(rows))
            wiped = np.cumsum(states[:, ::-1], axis=1)[:, ::-1][index, end]
            states = np.where(np.arange(w) < end[:, None], states[:, :w], 0.0)
            states[index, end] = wiped
        args = (views.slain[v, :w], views.by_group, views.wounds, views.models[v], v)
        parts.append((rows, summarise_states(states, *args)))
    return parts[0][1] if len(parts) == 1 else merge(parts, len(leaf))


def _dev_kernels(defs: Defences, steps: BatchSteps, combos: IntArray) -> Kernel:
    """Devastating kernels of (weapon * defences + defence) combos, allocation as the weapon's normal wounds."""
    n_def = len(defs.targets)
    weapon, defence = combos // n_def, combos % n_def
    step_of_weapon = np.zeros(len(steps.weapons), dtype=np.int64)
    step_of_weapon[steps.weapon] = np.arange(len(steps.weapon))
    return _kernels(defs, steps, steps.devastating, step_of_weapon[weapon], defence)
