"""Weapon choices resolved for many (attack signature, defence) combos at once.

A side with choices ("one melee weapon per model", standard or supercharged
profiles) takes, per entry, the choice with the highest expected damage of one
use against the defence's first model (`UnitEngine.expected_damage`, same
arithmetic). That reads of the defence only its wound contexts and first model
group (the choice key), so scores are a table [weapon, key]: mean wound counts
per (weapon, context) and mean losses per (weapon, group) from the vectorised
loss tables. Each distinct (signature, chosen weapons) is then ordered once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.units.counts import FloatArray
from pipeline.units.layout import IntArray
from pipeline.units.model import AttackEntry, ModelGroup, Phase, Weapon
from pipeline.units.steps import StepKey, ordered_steps
from pipeline.units.tables import LostCache, loss_tables

TIE = 1e-9
"""Scores this close (relative) are equal: rounding must not break a tie the rules call a tie."""

ChoiceKey = tuple[int, int, ModelGroup]
"""(context id with Blast's bonus, context id without, first model group)."""


def first_best(scores: FloatArray) -> IntArray:
    """Index of the first score within `TIE` of the best, along the last axis (ties: the first listed)."""
    best = scores.max(axis=-1, keepdims=True)
    result: IntArray = np.argmax(scores >= best - TIE * np.maximum(1.0, np.abs(best)), axis=-1)
    return result


class ChoiceResolver:
    """Chosen weapons per (entry, choice key) and ordered steps per (signature, chosen weapons)."""

    def __init__(self, count_pmf: object, lost: LostCache) -> None:
        self._count_pmf = count_pmf  # (weapon, uses, context id) -> pmf [normal, devastating]
        self._lost = lost

    def resolve(
        self, phase: Phase, entries: Sequence[tuple[AttackEntry, ...]], keys: Sequence[ChoiceKey], combos: IntArray
    ) -> tuple[IntArray, list[tuple[StepKey, ...]]]:
        """Per combo (row: signature index into `entries`, choice-key index into `keys`) the index of its
        steps in the returned list of distinct step sequences."""
        entry_ids: dict[tuple[Weapon, ...], int] = {}
        rows = [[entry_ids.setdefault(e.choices, len(entry_ids)) for e in sig] for sig in entries]
        usable = [self._usable(c, phase) for c in entry_ids]
        chosen = self._chosen(phase, usable, keys, rows, combos)
        code = np.concatenate([combos[:, :1], chosen], axis=1)
        unique, first, inverse = np.unique(code, axis=0, return_index=True, return_inverse=True)
        sequences: list[tuple[StepKey, ...]] = []
        memo: dict[tuple[StepKey, ...], int] = {}
        index = np.zeros(len(unique), dtype=np.int64)
        for u, row in enumerate(first.tolist()):
            sig, picks = int(combos[row, 0]), chosen[row].tolist()
            uses = [(e.models, usable[rows[sig][i]][picks[i]]) for i, e in enumerate(entries[sig])]
            steps = ordered_steps(phase, uses)
            index[u] = memo.setdefault(steps, len(memo))
            if index[u] == len(sequences):
                sequences.append(steps)
        result: IntArray = index[inverse.reshape(-1)]
        return result, sequences

    @staticmethod
    def _usable(choices: tuple[Weapon, ...], phase: Phase) -> list[Weapon]:
        return [w for w in choices if w.ranged == (phase is Phase.SHOOTING)] or list(choices)

    def _chosen(
        self,
        phase: Phase,
        usable: list[list[Weapon]],
        keys: Sequence[ChoiceKey],
        rows: list[list[int]],
        combos: IntArray,
    ) -> IntArray:
        """[combos, entries] index of the chosen weapon within each entry's usable list (0 when only one)."""
        width = max(len(r) for r in rows)
        entry = np.full((len(combos), width), -1, dtype=np.int64)
        row_table = np.full((len(rows), width), -1, dtype=np.int64)
        for sig, r in enumerate(rows):
            row_table[sig, : len(r)] = r
        entry[:] = row_table[combos[:, 0]]
        picks = np.zeros_like(entry)
        multi = [i for i, u in enumerate(usable) if len(u) > 1]
        if not multi:
            return picks
        profiles: dict[Weapon, int] = {}
        choice_table = np.full((len(usable), max(len(u) for u in usable)), -1, dtype=np.int64)
        for i in multi:
            choice_table[i, : len(usable[i])] = [profiles.setdefault(w.profile(), len(profiles)) for w in usable[i]]
        scores = self._scores(list(profiles), keys, phase)  # [profiles, keys]
        safe = np.maximum(entry, 0)
        options = choice_table[safe]  # [combos, entries, choices]
        values = np.where(options >= 0, scores[np.maximum(options, 0), combos[:, 1][:, None, None]], -np.inf)
        picks = np.where(entry >= 0, first_best(values), 0)
        result: IntArray = picks
        return result

    def _scores(self, weapons: list[Weapon], keys: Sequence[ChoiceKey], phase: Phase) -> FloatArray:
        """Expected damage of one use [weapon, key], as `UnitEngine.expected_damage` computes it."""
        groups: dict[ModelGroup, int] = {}
        group_of = np.array([groups.setdefault(k[2], len(groups)) for k in keys], dtype=np.int64)
        normal, devastating = loss_tables(self._lost, weapons, list(groups), phase)
        mean_normal = normal[:, :-1] @ np.arange(normal.shape[2], dtype=np.float64)  # [W, G]
        mean_dev = devastating[:, :-1] @ np.arange(devastating.shape[2], dtype=np.float64)
        out = np.zeros((len(weapons), len(keys)))
        for w, weapon in enumerate(weapons):
            context = np.array([k[0] if weapon.blast else k[1] for k in keys], dtype=np.int64)
            contexts, inverse = np.unique(context, return_inverse=True)
            means = np.array([self._means(weapon, c) for c in contexts.tolist()])[inverse]  # [keys, 2]
            out[w] = means[:, 0] * mean_normal[w, group_of] + means[:, 1] * mean_dev[w, group_of]
        return out

    def _means(self, weapon: Weapon, context: int) -> tuple[float, float]:
        counts: FloatArray = self._count_pmf(weapon, 1, context)  # type: ignore[operator]
        n, c = np.arange(counts.shape[0]), np.arange(counts.shape[1])
        return float(n @ counts.sum(axis=1)), float(c @ counts.sum(axis=0))
