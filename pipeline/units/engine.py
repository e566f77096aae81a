"""Unit against unit: exact models-slain distributions for many (attacker, target) pairs at once.

`compute_matchups(attackers, targets, pairs, scenario)` dedupes the pairs by
attack and defence signature (`signature.py`), resolves each distinct job's
weapon steps as integer ids (`choices.py` for weapon choices), cuts the jobs
into batches of one state shape (`plan.py`) and solves each batch as a prefix
tree of steps (`tree.py`), then summarises (`results.py`). `reference_matchups`
is the previous per-job chain (`UnitEngine.solve`), kept as the reference the
tests compare with. Docs: `docs/units.md`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.damage.scenarios import SCENARIO_DEFINITIONS, Scenario
from pipeline.runtime import fork_pool
from pipeline.units.choices import ChoiceResolver, first_best
from pipeline.units.count_cache import SHARED, SharedCounts
from pipeline.units.counts import FloatArray, WoundContext, count_key
from pipeline.units.families import representatives
from pipeline.units.layout import IntArray, StateLayout, one_line_layout, two_line_layout
from pipeline.units.losses import wound_losses
from pipeline.units.model import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from pipeline.units.plan import Batch, batches, chain_table, line_states, pad_columns, padded_states
from pipeline.units.results import Matchups, Summary, assemble, merge, summarise
from pipeline.units.signature import anti_keywords, attack_signature, defence_signature
from pipeline.units.solve import Step, capped_kernel, propagate
from pipeline.units.steps import StepKey, ordered_steps
from pipeline.units.tables import LostCache, defences, loss_tables, views
from pipeline.units.tree import BatchSteps, PmfShapes, solve_tree

MAX_BATCH_CELLS = 1 << 21
"""Upper bound on pairs x pending combinations x states held by one batch (memory, not speed)."""


@dataclass(frozen=True, slots=True)
class Job:
    """One distinct (attack signature, defence signature) pair, its steps resolved."""

    target: TargetUnit
    phase: Phase
    steps: tuple[StepKey, ...]
    counts: tuple[FloatArray, ...]
    two_lines: bool

    @property
    def states(self) -> tuple[int, int]:
        """(padded Bodyguard-line states, Leader-line states); one line: (padded states, 1)."""
        return line_states(self.target, self.two_lines)

    def shape_key(self) -> tuple[object, ...]:
        devastating = tuple(c.shape[1] > 1 for c in self.counts)
        return (self.two_lines, len(self.steps), devastating, self.states)


class UnitEngine:
    """Caches per scenario: wound counts, per-wound losses and state layouts, shared by every pair."""

    def __init__(
        self, scenario: Scenario | str = "default", workers: int = 1, shared: SharedCounts | None = None
    ) -> None:
        self.scenario = SCENARIO_DEFINITIONS[scenario] if isinstance(scenario, str) else scenario
        self.workers = workers
        self.shared = SHARED if shared is None else shared  # count pmfs of every engine of the process
        self._contexts: dict[TargetUnit, tuple[WoundContext, int, int]] = {}
        self._context_ids: dict[WoundContext, int] = {}
        self._losses: dict[tuple[Weapon, ModelGroup, Phase], tuple[FloatArray, FloatArray]] = {}
        self._layouts: dict[tuple[TargetUnit, bool, int, int], StateLayout] = {}
        self.contexts: list[WoundContext] = []
        self._count_keys: dict[tuple[Weapon, int], tuple[object, ...]] = {}
        self._count_ids: dict[tuple[Weapon, int, tuple[object, ...]], int] = {}
        self.count_pmfs: list[FloatArray] = []
        self.pmf_shapes = PmfShapes(self.count_pmfs)
        self.step_ids: dict[StepKey, int] = {}
        self.step_list: list[StepKey] = []
        self.lost = LostCache(self.scenario)
        self._step_counts: dict[tuple[int, int, bool], int] = {}  # (step id, context id, one use) -> count id
        self.choices = ChoiceResolver(lambda w, u, c: self.count_pmfs[self.count_id(w, u, c)], self.lost)

    # --- cached pieces -----------------------------------------------------------------------------------

    def context(self, target: TargetUnit) -> tuple[WoundContext, int, int]:
        """(wound context, its id, the id of the same context without Blast's bonus), cached per target."""
        if target not in self._contexts:
            ctx = WoundContext(target.toughness, target.keywords, target.stealth, target.models // 5, self.scenario)
            ids = [self._context_id(c) for c in (ctx, _no_blast(ctx))]
            self._contexts[target] = (ctx, ids[0], ids[1])
        return self._contexts[target]

    def _context_id(self, ctx: WoundContext) -> int:
        if ctx not in self._context_ids:
            self._context_ids[ctx] = len(self.contexts)
            self.contexts.append(ctx)
        return self._context_ids[ctx]

    def counts(self, weapon: Weapon, uses: int, target: TargetUnit) -> FloatArray:
        _, with_blast, without = self.context(target)
        return self.count_pmfs[self.count_id(weapon, uses, with_blast if weapon.blast else without)]

    def count_id(self, weapon: Weapon, uses: int, context: int) -> int:
        """Id of the wound count pmf of `uses` uses against context id `context` (shared by equal count keys)."""
        ckey = self._count_keys.get((weapon, context))
        if ckey is None:
            ckey = self._count_keys[(weapon, context)] = count_key(weapon, self.contexts[context])
        key = (weapon, uses, ckey)
        found = self._count_ids.get(key)
        if found is None:
            found = self._count_ids[key] = len(self.count_pmfs)
            self.count_pmfs.append(self.shared.wound_counts(weapon, uses, self.contexts[context], ckey))
        return found

    def step_id(self, step: StepKey) -> int:
        if step not in self.step_ids:
            self.step_ids[step] = len(self.step_list)
            self.step_list.append(step)
        return self.step_ids[step]

    def losses(self, weapon: Weapon, group: ModelGroup, phase: Phase) -> tuple[FloatArray, FloatArray]:
        key = (weapon, group, phase)
        if key not in self._losses:
            self._losses[key] = wound_losses(weapon, group, phase, self.scenario)
        return self._losses[key]

    def layout(self, target: TargetUnit, two_lines: bool, body_states: int, leader_states: int) -> StateLayout:
        key = (target, two_lines, body_states, leader_states)
        if key not in self._layouts:
            if two_lines:
                self._layouts[key] = two_line_layout(target.groups, target.leader, body_states, leader_states)
            else:
                self._layouts[key] = one_line_layout(target.groups, target.leader, body_states)
        return self._layouts[key]

    # --- steps -------------------------------------------------------------------------------------------

    def expected_damage(self, weapon: Weapon, target: TargetUnit, phase: Phase) -> float:
        """One use's expected wounds lost by the first model in allocation order (uncapped)."""
        counts = self.counts(weapon, 1, target)
        normal, devastating = self.losses(weapon, target.groups[0], phase)
        n, c = np.arange(counts.shape[0]), np.arange(counts.shape[1])
        mean_normal, mean_dev = float(normal @ np.arange(len(normal))), float(devastating @ np.arange(len(normal)))
        return float(n @ counts.sum(axis=1)) * mean_normal + float(c @ counts.sum(axis=0)) * mean_dev

    def choose(self, entry: AttackEntry, target: TargetUnit, phase: Phase) -> Weapon:
        """The entry's weapon with the highest expected damage against the target (ties: the first)."""
        usable = [w for w in entry.choices if w.ranged == (phase is Phase.SHOOTING)] or list(entry.choices)
        if len(usable) == 1:
            return usable[0]
        scores = np.array([self.expected_damage(w.profile(), target, phase) for w in usable])
        return usable[int(first_best(scores[None, :])[0])]

    def job(self, signature: tuple[object, ...], target: TargetUnit) -> Job:
        phase, kind, payload = signature
        assert isinstance(phase, Phase)
        if kind == "steps":
            steps = payload
            assert isinstance(steps, tuple)
        else:
            assert isinstance(payload, tuple)
            steps = ordered_steps(phase, [(e.models, self.choose(e, target, phase)) for e in payload])
        counts = tuple(self.counts(w, uses, target) for w, uses in steps)
        two_lines = target.attached and any(w.precision for w, _ in steps)
        return Job(target, phase, steps, counts, two_lines)

    # --- prefix tree (the fast path) ------------------------------------------------------------------------

    def solve_jobs(
        self, attacks: Sequence[tuple[object, ...]], targets: Sequence[TargetUnit], job_attack: IntArray,
        job_defence: IntArray, distributions: bool = True, operators: bool = True,
    ) -> Summary:  # fmt: skip
        """Summary per job (attack signature index, defence index), computed batch by batch as prefix trees;
        without `distributions` its `slain_dist` has no columns (the numbers need only the stats); without
        `operators` no step is a dense operator (`tree.solve_tree`: each job's numbers then depend only on the
        job and the defence it is solved on, whatever else the call computes)."""
        if not len(job_attack):
            return merge([], 0)
        chains, phase_of = self._chains(attacks, targets, job_attack, job_defence)
        precise = np.array([w.precision for w, _ in self.step_list] + [False])
        attached = np.array([t.attached for t in targets])
        two_lines = attached[job_defence] & np.any((chains >= 0) & precise[chains], axis=1)
        solved = self._family_defences(targets, job_defence, chains)
        planned = batches(solved, phase_of[job_attack], two_lines, targets, job_defence)
        work = sorted(planned, key=lambda b: -len(b.jobs))
        if self.workers > 1 and len(work) > 1:
            return merge(self._solve_parallel(work, targets, chains, distributions, operators), len(job_attack))
        parts = [(b.jobs, self._solve_tree(b, targets, chains[b.jobs], distributions, operators)) for b in work]
        return merge(parts, len(job_attack))

    def _family_defences(self, targets: Sequence[TargetUnit], job_defence: IntArray, chains: IntArray) -> IntArray:
        """Per job, the defence its tree is solved on: the largest member of its family (`families.py`) that
        reads the same wound counts (the same Blast bonus when the job has a Blast step)."""
        reps = self.representatives(targets)
        blast = np.array([w.blast for w, _ in self.step_list] + [False])
        with_blast = np.any((chains >= 0) & blast[chains], axis=1)
        solved: IntArray = reps[with_blast.astype(np.int64), job_defence]
        return solved

    def representatives(self, defences: Sequence[TargetUnit]) -> IntArray:
        """[2, D]: per defence the family member its jobs are solved on (`families.representatives`), row 0 for
        jobs without a Blast step, row 1 for jobs with one."""
        contexts = np.array([self.context(t)[1:] for t in defences], dtype=np.int64).reshape(-1, 2)
        return representatives(defences, contexts)

    def _solve_parallel(
        self, work: list[Batch], targets: Sequence[TargetUnit], chains: IntArray, distributions: bool,
        operators: bool,
    ) -> list[tuple[IntArray, Summary]]:  # fmt: skip
        """Batches spread over `workers` forked processes (each inherits the caches built so far)."""
        global _FORKED
        _FORKED = (self, targets, distributions, operators)
        with fork_pool(self.workers) as pool:
            results = pool.map(_solve_forked, work, [chains[b.jobs] for b in work])
            parts = [(b.jobs, summary) for b, summary in zip(work, results, strict=True)]
        _FORKED = None
        return parts

    def _chains(
        self, attacks: Sequence[tuple[object, ...]], targets: Sequence[TargetUnit], job_attack: IntArray,
        job_defence: IntArray,
    ) -> tuple[IntArray, IntArray]:  # fmt: skip
        """Step-id rows per job (weapon choices resolved once per what they read) and the phase per signature."""
        phase_of = np.array([list(Phase).index(sig[0]) for sig in attacks], dtype=np.int64)  # type: ignore[arg-type]
        fixed = np.array([sig[1] == "steps" for sig in attacks])
        rows = [[self.step_id(s) for s in sig[2]] if sig[1] == "steps" else [] for sig in attacks]  # type: ignore[attr-defined]
        chains = chain_table(rows)[job_attack]
        choosing = np.flatnonzero(~fixed[job_attack])
        if not len(choosing):
            return chains, phase_of
        choice_keys: dict[tuple[object, ...], int] = {}
        key_of = np.array([choice_keys.setdefault(self._choice_key(t), len(choice_keys)) for t in targets])
        unique, inverse = np.unique(job_attack[choosing] * len(choice_keys) + key_of[job_defence[choosing]],
                                    return_inverse=True)  # fmt: skip
        signature, key = unique // len(choice_keys), unique % len(choice_keys)
        resolved: list[list[int]] = [[] for _ in range(len(unique))]
        for p, phase in enumerate(Phase):
            chosen = np.flatnonzero(phase_of[signature] == p)
            if not len(chosen):
                continue
            sigs, local = np.unique(signature[chosen], return_inverse=True)
            entries = [attacks[a][2] for a in sigs.tolist()]
            combos = np.stack([local, key[chosen]], axis=1)
            index, sequences = self.choices.resolve(phase, entries, list(choice_keys), combos)  # type: ignore[arg-type]
            ids = [[self.step_id(s) for s in seq] for seq in sequences]
            for row, i in zip(chosen.tolist(), index.tolist(), strict=True):
                resolved[row] = ids[i]
        table = chain_table(resolved)
        width = max(chains.shape[1], table.shape[1])
        chains = pad_columns(chains, width)
        chains[choosing] = pad_columns(table, width)[inverse]
        return chains, phase_of

    def _choice_key(self, target: TargetUnit) -> tuple[object, ...]:
        """What a weapon choice reads of a defence: its wound contexts and first model group."""
        _, with_blast, without = self.context(target)
        return (with_blast, without, target.groups[0])

    def _solve_tree(
        self, batch: Batch, targets: Sequence[TargetUnit], chains: IntArray, distributions: bool = True,
        operators: bool = True,
    ) -> Summary:  # fmt: skip
        local_targets = [targets[d] for d in batch.defences.tolist()]
        layouts = [self.layout(t, batch.two_lines, batch.body, batch.leader) for t in local_targets]
        defs = defences(local_targets, layouts, batch.two_lines)
        used, local = np.unique(chains[chains >= 0], return_inverse=True)
        local_chains = np.full_like(chains, -1)
        local_chains[chains >= 0] = local
        steps = [self.step_list[i] for i in used.tolist()]
        weapon_index: dict[Weapon, int] = {}
        weapon = np.array([weapon_index.setdefault(w, len(weapon_index)) for w, _ in steps], dtype=np.int64)
        normal, devastating = loss_tables(self.lost, list(weapon_index), defs.groups, batch.phase)
        contexts = np.array([self.context(t)[1:] for t in local_targets], dtype=np.int64).reshape(-1, 2)
        blast = np.array([w.blast for w, _ in steps], dtype=bool)

        memo = self._step_counts
        n_ctx = len(self.contexts)
        global_step = used.tolist()

        def count_ids(step: IntArray, defence: IntArray, single: bool = False) -> IntArray:
            context = np.where(blast[step], contexts[defence, 0], contexts[defence, 1])
            unique, inverse = np.unique((step * n_ctx + context) * 2 + single, return_inverse=True)
            ids = np.zeros(len(unique), dtype=np.int64)
            for i, u in enumerate(unique.tolist()):
                key = (global_step[u // 2 // n_ctx], u // 2 % n_ctx, single)
                found = memo.get(key)
                if found is None:
                    weapon, uses = steps[u // 2 // n_ctx]
                    found = memo[key] = self.count_id(weapon, 1 if single else uses, u // 2 % n_ctx)
                ids[i] = found
            result: IntArray = ids[inverse]
            return result

        precise = np.array([w.precision for w, _ in steps], dtype=bool)
        uses = np.array([u for _, u in steps], dtype=np.int64)
        batch_steps = BatchSteps(
            weapon, uses, precise, list(weapon_index), count_ids, self.count_pmfs, normal, devastating, self.pmf_shapes
        )
        view_ids, job_view = np.unique(batch.views, return_inverse=True)
        view_targets = [targets[v] for v in view_ids.tolist()]
        layouts = [self.layout(t, batch.two_lines, batch.body, batch.leader) for t in view_targets]
        own = [
            batch.body * batch.leader if batch.two_lines else padded_states(t.total_wounds + 1) for t in view_targets
        ]
        summaries = views(view_targets, layouts, own)
        return solve_tree(
            defs, batch_steps, batch.job_defence, local_chains, summaries, job_view, distributions, operators
        )

    # --- batches -----------------------------------------------------------------------------------------

    def solve(self, jobs: Sequence[Job]) -> Summary:
        """Summary of `jobs` (row i: job i), computed in batches of one state shape."""
        groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
        for index, job in enumerate(jobs):
            groups[job.shape_key()].append(index)
        parts: list[tuple[list[int], Summary]] = []
        for members in groups.values():
            body, leader = jobs[members[0]].states
            pending = _batch_pending([jobs[i] for i in members])
            size = max(1, MAX_BATCH_CELLS // (body * leader * pending))
            for start in range(0, len(members), size):
                chunk = members[start : start + size]
                parts.append((chunk, self._solve_batch([jobs[i] for i in chunk], body, leader)))
        return merge(parts, len(jobs))

    def _solve_batch(self, jobs: Sequence[Job], body: int, leader: int) -> Summary:
        two_lines = jobs[0].two_lines
        layouts = [self.layout(j.target, two_lines, body, leader) for j in jobs]
        size = body * leader
        steps = [self._step(jobs, layouts, k) for k in range(len(jobs[0].steps))]
        start = np.zeros((len(jobs), size))
        start[:, 0] = 1.0
        final = propagate(steps, start)
        return summarise(final, layouts, [j.target for j in jobs])

    def _step(self, jobs: Sequence[Job], layouts: Sequence[StateLayout], k: int) -> Step:
        counts = _stack_counts([j.counts[k] for j in jobs])
        n_groups = max(len(j.target.all_groups) for j in jobs)
        allocations = [
            lay.precision if j.steps[k][0].precision else lay.normal for j, lay in zip(jobs, layouts, strict=True)
        ]
        group = np.stack([a.group for a in allocations])
        remaining = np.stack([a.remaining for a in allocations])
        on_leader = np.stack([a.leader for a in allocations])
        pairs = [[self.losses(j.steps[k][0], g, j.phase) for g in j.target.all_groups] for j in jobs]
        stride, two_lines = layouts[0].stride, jobs[0].two_lines
        normal = capped_kernel(_per_state(pairs, 0, n_groups, group), remaining, on_leader, stride, two_lines)
        devastating = None
        if counts.shape[2] > 1:
            losses = _per_state(pairs, 1, n_groups, group)
            devastating = capped_kernel(losses, remaining, on_leader, stride, two_lines)
        return Step(counts, normal, devastating)


_FORKED: tuple[UnitEngine, Sequence[TargetUnit], bool, bool] | None = None
"""The engine, defences and options a forked worker reads (set by the parent just before the fork)."""


def _solve_forked(batch: Batch, chains: IntArray) -> Summary:
    assert _FORKED is not None
    engine, targets, distributions, operators = _FORKED
    return engine._solve_tree(batch, targets, chains, distributions, operators)


def _batch_pending(jobs: Sequence[Job]) -> int:
    """Pending combinations of a batch: counts are padded to the largest per step."""
    return int(np.prod([max(j.counts[k].shape[1] for j in jobs) for k in range(len(jobs[0].counts))]))


def _no_blast(ctx: WoundContext) -> WoundContext:
    return WoundContext(ctx.toughness, ctx.anti_keywords, ctx.stealth, 0, ctx.scenario)


def _stack_counts(pmfs: Sequence[FloatArray]) -> FloatArray:
    out = np.zeros((len(pmfs), max(p.shape[0] for p in pmfs), max(p.shape[1] for p in pmfs)))
    for b, pmf in enumerate(pmfs):
        out[b, : pmf.shape[0], : pmf.shape[1]] = pmf
    return out


def _per_state(
    pairs: Sequence[Sequence[tuple[FloatArray, FloatArray]]], which: int, n_groups: int, group: np.ndarray
) -> FloatArray:
    """Loss pmfs per (pair, state) [B, S, J]; the last row (group -1: nobody left) never moves."""
    width = max(len(p[which]) for row in pairs for p in row)
    table = np.zeros((len(pairs), n_groups + 1, width))
    table[:, n_groups, 0] = 1.0
    for b, row in enumerate(pairs):
        for g, p in enumerate(row):
            table[b, g, : len(p[which])] = p[which]
    result: FloatArray = table[np.arange(len(pairs))[:, None], group]
    return result


def _pair_array(pairs: Sequence[tuple[int, int]] | IntArray | None, attackers: int, targets: int) -> IntArray:
    if pairs is None:
        grid = np.stack(np.meshgrid(np.arange(attackers), np.arange(targets), indexing="ij"), axis=-1)
        return grid.reshape(-1, 2).astype(np.int64)
    return np.asarray(pairs, dtype=np.int64).reshape(-1, 2)


@dataclass(frozen=True, slots=True)
class DistinctJobs:
    """Pairs mapped to distinct (attack signature, defence signature) jobs."""

    pairs: IntArray
    attacks: list[tuple[object, ...]]
    defences: list[TargetUnit]
    job_attack: IntArray
    job_defence: IntArray
    pair_jobs: IntArray


def distinct_jobs(
    attackers: Sequence[AttackSide], targets: Sequence[TargetUnit], pairs: Sequence[tuple[int, int]] | IntArray | None
) -> DistinctJobs:
    """Signatures per attacker and per (phase, target), then the distinct combinations the pairs need."""
    pair_array = _pair_array(pairs, len(attackers), len(targets))
    attack_ids: dict[tuple[object, ...], int] = {}
    attack_of = np.array([attack_ids.setdefault(attack_signature(a), len(attack_ids)) for a in attackers] or [0])
    defence_list, defence_of = _defences(attackers, targets)
    phase_of = np.array([list(Phase).index(a.phase) for a in attackers] or [0])
    attacker_of_pair, target_of_pair = pair_array[:, 0], pair_array[:, 1]
    n_def = max(1, len(defence_list))
    keys = attack_of[attacker_of_pair] * n_def + defence_of[phase_of[attacker_of_pair], target_of_pair]
    unique, pair_jobs = np.unique(keys, return_inverse=True)
    return DistinctJobs(
        pair_array, list(attack_ids), defence_list, unique // n_def, unique % n_def, pair_jobs.astype(np.int64)
    )


def _defences(attackers: Sequence[AttackSide], targets: Sequence[TargetUnit]) -> tuple[list[TargetUnit], IntArray]:
    """The distinct defence signatures of the targets in the attackers' phases (Anti keywords: the attackers'),
    and per (phase, target) the index of its defence (0 in a phase no attacker has)."""
    keywords = anti_keywords(attackers)
    defence_ids: dict[TargetUnit, int] = {}
    defence_of = np.zeros((len(Phase), max(1, len(targets))), dtype=np.int64)
    for phase in sorted({a.phase for a in attackers}):
        for t, target in enumerate(targets):
            signature = defence_signature(target, phase, keywords)
            defence_of[list(Phase).index(phase), t] = defence_ids.setdefault(signature, len(defence_ids))
    return list(defence_ids), defence_of


@dataclass(frozen=True, slots=True)
class Solved:
    """What `compute_matchups` reads of a call's targets for one phase: each target's defence signature and
    the family member its pairs are solved on (`families.py`), by target index."""

    defences: list[TargetUnit]
    defence_of: IntArray  # [T] index into `defences`
    representative: IntArray  # [2, T] index of a target whose defence the pairs are solved on (row 1: Blast)


def solved_on(engine: UnitEngine, attackers: Sequence[AttackSide], targets: Sequence[TargetUnit]) -> Solved:
    """For attackers of one phase against `targets`: every target's defence and the target whose defence its
    pairs are solved on. With `compute_matchups(..., operators=False)` a pair's numbers depend on the other
    targets of the call through this alone (docs/units.md#partitions), so a call on a subset of the targets
    that keeps each target's representative gives the same numbers."""
    phases = {a.phase for a in attackers}
    if len(phases) != 1:
        raise ValueError("solved_on takes the attackers of one phase")
    signatures, defence_of = _defences(attackers, targets)
    row = defence_of[list(Phase).index(phases.pop()), : len(targets)]
    first = np.zeros(len(signatures), dtype=np.int64)
    used, index = np.unique(row, return_index=True)
    first[used] = index  # the first target of each defence
    reps = engine.representatives(signatures)
    return Solved(signatures, row, first[reps[:, row]])


def compute_matchups(
    attackers: Sequence[AttackSide],
    targets: Sequence[TargetUnit],
    pairs: Sequence[tuple[int, int]] | IntArray | None = None,
    scenario: Scenario | str = "default",
    engine: UnitEngine | None = None,
    distributions: bool = True,
    operators: bool = True,
) -> Matchups:
    """Distributions and summaries for (attacker index, target index) pairs (default: every pair); without
    `distributions`, `job_dist` has no columns (the summaries are the same); without `operators` every step
    is a chain (`tree.solve_tree`): a pair's numbers then depend only on its own job and the family member
    its defence is solved on (`family_representatives`), not on the other pairs of the call (docs/units.md)."""
    engine = engine or UnitEngine(scenario)
    jobs = distinct_jobs(attackers, targets, pairs)
    summary = engine.solve_jobs(
        jobs.attacks, jobs.defences, jobs.job_attack, jobs.job_defence, distributions, operators
    )
    return assemble(summary, jobs.pair_jobs, jobs.pairs, attackers, targets)


def reference_matchups(
    attackers: Sequence[AttackSide],
    targets: Sequence[TargetUnit],
    pairs: Sequence[tuple[int, int]] | IntArray | None = None,
    scenario: Scenario | str = "default",
) -> Matchups:
    """The same results through the per-job batched chain (`UnitEngine.solve`): the fast path's reference."""
    engine = UnitEngine(scenario)
    jobs = distinct_jobs(attackers, targets, pairs)
    pairs_ad = zip(jobs.job_attack.tolist(), jobs.job_defence.tolist(), strict=True)
    plain = [engine.job(jobs.attacks[a], jobs.defences[d]) for a, d in pairs_ad]
    return assemble(engine.solve(plain), jobs.pair_jobs, jobs.pairs, attackers, targets)
