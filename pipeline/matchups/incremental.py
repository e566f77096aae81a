"""Content keys of the matchups stage's cached parts (docs/units.md#partitions, docs/releases.md#the-cache).

A key is a digest of everything the part's bytes are computed from — the unit options it reads (every field,
`ValueDigest`), the scenario, the table's options and the code fingerprint (code and library versions) —
never of a catalogue, file or unit name alone. What a part reads:

- a `unit_matchups` file (chunk c of faction a's attackers against the targets of faction t): c's attacking
  options (`attacker_read`: id, models, attack sides), t's target options (`target_read`: id, models, cost,
  target unit), and of the other targets only the defences the pairs of t's targets are
  solved on (their family representatives, `units.engine.solved_on`, per phase: they depend on c's Anti
  keywords and on every target's defence). Those representatives outside t are the task's helpers: a call on
  t's targets and its helpers gives t's rows bit for bit (`compute_matchups(..., operators=False)`).
  The key is made of the file's *basis* key (all of that without any cost: every column but the points
  columns) and the costs it reads (`attacker_costs`, `target_costs`): a file whose costs alone changed is
  re-costed from its basis (`matchups/recost.py`) instead of computed.
- a `unit_vs_reference` piece (one attacker faction's golden options against the reference units in every
  published scenario): those options, the reference units and the scenarios; the options' costs only when a
  reference unit has one (they have none: the points columns are null, so a change of costs keeps the piece).
  Without dense operators a job's numbers do not depend on the other attackers of the call, and the reference
  units' families are their own (1, 5, 10 and 20 models of each profile).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.cache.entries import CacheWarning
from pipeline.cache.fingerprint import ValueDigest, code_fingerprint, key_of, value_digest
from pipeline.cache.parts import PartCache
from pipeline.matchups.partition import MatchupInputs, PartitionKey, _engine
from pipeline.matchups.sides import UnitOption
from pipeline.units.engine import solved_on
from pipeline.units.model import AttackSide, ModelGroup, Phase, TargetUnit
from pipeline.units.signature import anti_keywords

#: A solved call's memo key: scenario, phase and the attackers' Anti keywords.
Memo = tuple[str, Phase, frozenset[str]]

#: Cache kinds (`pipeline/cache/parts.py`): sub-folders of `<cache>/parts/`.
MATCHUPS_KIND = "unit_matchups"
VS_REFERENCE_KIND = "unit_vs_reference"


#: The plan's `solved_on` results (each target's representative and defence digest) per Anti keyword set.
PLAN_KIND = "unit_matchups_plan"

#: The files' bases (`g0`, `g1`, ...: expected models slain per group of each row's target), by basis key.
BASIS_KIND = "unit_matchups_basis"


@dataclass(frozen=True)
class PartContent:
    """One file's content key, its basis key (the same without any cost) and the targets outside its faction
    its call needs (indices into `targets`)."""

    key: str
    helpers: frozenset[int]
    basis: str = ""


class MatchupPartKeys:
    """Content keys of the `unit_matchups` files of one `MatchupInputs`, per chunk and target faction."""

    def __init__(self, inputs: MatchupInputs, plans: PartCache | None = None, reads: ValueDigest | None = None) -> None:
        self.inputs = inputs
        self.plans = plans
        self.digester = ValueDigest()
        self.reads = reads or costless_digester()
        self.faction_targets = {f: inputs.faction_targets(f) for f in inputs.target_factions}
        target_digests = [self.reads.hexdigest(target_read(t)) for t in inputs.targets]
        self.targets_digest = _joined(target_digests)
        self.faction_digests = {
            f: _joined(target_digests[i] for i in index.tolist()) for f, index in self.faction_targets.items()
        }
        self.faction_costs = {
            f: value_digest(tuple(target_costs(inputs.targets[i]) for i in index.tolist()))
            for f, index in self.faction_targets.items()
        }
        self._solved: dict[Memo, tuple[np.ndarray, list[str]]] = {}
        self._represents: dict[tuple[Memo, str], tuple[str, list[int]]] = {}
        self._signatures: dict[TargetUnit, str] = {}

    def of(self, key: PartitionKey) -> dict[str, PartContent]:
        """Per target faction, the content of the file (key's chunk, faction)."""
        inputs = self.inputs
        attackers = inputs.chunk_attackers(key)
        attack = _joined(self.reads.hexdigest(attacker_read(o)) for o in attackers)
        attack_costs = value_digest(tuple(attacker_costs(o) for o in attackers))
        solved = [(p, self._solved_on(key.scenario, p, attackers)) for p in Phase]
        contents = {}
        for faction in self.faction_targets:
            represented = []
            helpers: set[int] = set()
            for phase, memo in solved:
                if memo is not None:
                    digest, outside = self._represented(memo, faction)
                    represented.append(f"{phase.value}:{digest}")
                    helpers.update(outside)
            basis = key_of(
                BASIS_KIND, code_fingerprint(), key.scenario, f"distribution={inputs.keep_distribution}",
                attack, self.faction_digests[faction], *represented,
            )  # fmt: skip
            content = key_of(MATCHUPS_KIND, basis, attack_costs, self.faction_costs[faction])
            contents[faction] = PartContent(content, frozenset(helpers), basis)
        return contents

    def _solved_on(self, scenario: str, phase: Phase, attackers: Sequence[UnitOption]) -> Memo | None:
        """`solved_on` for the attackers of one phase against every target, with the digest of each target's
        representative defence, memoised per Anti keyword set (most chunks share theirs); returns its memo
        key, or None when no attacker has that phase."""
        sides = [o.sides[phase] for o in attackers if phase in o.sides]
        if not sides or not self.inputs.targets:
            return None
        memo = (scenario, phase, anti_keywords(sides))
        if memo not in self._solved:
            key = key_of(PLAN_KIND, code_fingerprint(), scenario, phase.value, *sorted(memo[2]), self.targets_digest)
            self._solved[memo] = self._cached_plan(key) or self._solve(scenario, sides, key)
        return memo

    def _solve(self, scenario: str, sides: Sequence[AttackSide], key: str) -> tuple[np.ndarray, list[str]]:
        """`solved_on` against every target: each target's representative and its defence's digest (kept in
        the plan cache under `key`)."""
        targets = [t.target for t in self.inputs.targets if t.target is not None]
        result = solved_on(_engine(scenario, 1), sides, targets)
        digests = [self._signature(d) for d in result.defences]
        if self.plans is not None:
            plan = {"digests": digests, "defence_of": result.defence_of.tolist(),
                    "representative": result.representative.tolist()}  # fmt: skip
            self.plans.keep_bytes(key, json.dumps(plan, separators=(",", ":")).encode())
        return result.representative, [digests[d] for d in result.defence_of.tolist()]

    def _cached_plan(self, key: str) -> tuple[np.ndarray, list[str]] | None:
        """A plan kept by an earlier run whose targets read the same (their defences do not read costs)."""
        found = self.plans.get(key) if self.plans is not None else None
        if found is None:
            return None
        try:
            plan = json.loads(found[0].read_bytes())
            digests = [plan["digests"][d] for d in plan["defence_of"]]
            representative = np.array(plan["representative"], dtype=np.int64)
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            warnings.warn(f"cache plan ignored, recomputing: {found[0]}: {exc}", CacheWarning, stacklevel=2)
            return None
        if representative.shape != (2, len(digests)) or len(digests) != len(self.inputs.targets):
            return None
        return representative, digests

    def _represented(self, memo: Memo, faction: str) -> tuple[str, list[int]]:
        """For one solved call and one target faction: the digests of its targets' representatives, joined,
        and those representatives outside the faction (the helpers); the same for every chunk of the memo."""
        if (memo, faction) not in self._represents:
            representative, digests = self._solved[memo]
            index = self.faction_targets[faction]
            reps = representative[:, index]
            self._represents[memo, faction] = (
                _joined([digests[r] for r in reps.ravel().tolist()]),
                np.setdiff1d(reps, index).tolist(),
            )
        return self._represents[memo, faction]

    def _signature(self, defence: TargetUnit) -> str:
        if defence not in self._signatures:
            self._signatures[defence] = self.digester.hexdigest(defence)
        return self._signatures[defence]


def costless_digester() -> ValueDigest:
    """A `ValueDigest` that reads every model group's and attack side's points as 0: the digest of what a basis
    reads (`attacker_read`, `target_read`) without building costless copies of the options. One digester
    serves a plan's every read (its memo: the options share their sides, groups and weapons)."""
    return ValueDigest(fixed={ModelGroup: {"points": 0.0}, AttackSide: {"points": 0.0}})


def attacker_read(option: UnitOption) -> tuple[object, ...]:
    """What a `unit_matchups` file's basis reads of an attacking option: its id, models and attack sides, their
    costs left out by the digester (`costless_digester`; the costs: `attacker_costs`)."""
    return (option.unit_id, option.models, option.sides)


def attacker_costs(option: UnitOption) -> tuple[object, ...]:
    """The costs a `unit_matchups` file reads of an attacking option: each attack side's (per 100 points)."""
    return tuple(sorted((p.value, s.points) for p, s in option.sides.items()))


def target_read(option: UnitOption) -> tuple[object, ...]:
    """What a `unit_matchups` file's basis reads of a target option: its id, models and target unit, its costs
    left out by the digester (`costless_digester`; the costs: `target_costs`)."""
    return (option.unit_id, option.models, option.target)


def target_costs(option: UnitOption) -> tuple[object, ...]:
    """The costs a `unit_matchups` file reads of a target option: the option's and each model's."""
    groups = option.target.all_groups if option.target is not None else ()
    return (option.cost, tuple(g.points for g in groups))


def vs_reference_keys(
    options: Sequence[UnitOption],
    references: Sequence[UnitOption],
    scenarios: Sequence[str],
    reads: ValueDigest | None = None,
) -> dict[str, str]:
    """Per attacker faction (slug), the content key of its `unit_vs_reference` piece: its golden options (in
    order; what the rows read of them), the reference units and the scenarios. `reads`: the plan's
    `costless_digester` (its memo serves the files' keys too)."""
    digester = reads or costless_digester()
    reference = _joined(ValueDigest().hexdigest(r) for r in references)  # every field: their costs too
    scenario = value_digest(tuple(scenarios))
    costed = any(r.cost > 0 for r in references)  # else every points column is null: no cost is read
    by_faction: dict[str, list[str]] = {}
    for option in options:  # what its rows read: id, models, faction and attack sides (not its target)
        read = (*attacker_read(option), option.faction_slug, attacker_costs(option) if costed else ())
        by_faction.setdefault(option.faction_slug, []).append(digester.hexdigest(read))
    return {
        faction: key_of(VS_REFERENCE_KIND, code_fingerprint(), scenario, reference, _joined(digests))
        for faction, digests in sorted(by_faction.items())
    }


def _joined(digests: Iterable[str]) -> str:
    """One sha256 over a sequence of hex digests (in order), each followed by a line break."""
    items = list(digests)
    return hashlib.sha256(("\n".join(items) + "\n" if items else "").encode()).hexdigest()
