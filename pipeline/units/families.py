"""Defence families: a smaller unit of a profile is the larger unit's process, truncated (docs/units.md).

Two defences are one family when their lines differ only in the count of the last model group (no Leader):
the smaller line is a prefix of the larger one, every state below its wipe allocates to the same model with
the same remaining wounds, and no loss crosses a model's end, so the smaller unit's end state is the larger
one's lumped at its total wounds. The steps must read the same wound counts of both: equal wound contexts
(Toughness, keywords, Stealth), and for a job with a Blast step the same Blast bonus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pipeline.units.layout import IntArray
from pipeline.units.model import TargetUnit


def family_key(target: TargetUnit) -> tuple[object, ...] | None:
    """The line without the last group's count; None for an attached unit (its Leader ends the line)."""
    if target.attached:
        return None
    return (target.groups[:-1], replace(target.groups[-1], count=1))


def representatives(defences: Sequence[TargetUnit], contexts: IntArray) -> IntArray:
    """[2, D]: per defence the family member with the most models and the same wound contexts (`contexts`
    [D, 2]: with Blast's bonus, without), row 0 for jobs without a Blast step, row 1 for jobs with one."""
    reps = np.tile(np.arange(len(defences), dtype=np.int64), (2, 1))
    best: dict[tuple[object, ...], int] = {}
    keys: list[tuple[tuple[object, ...], tuple[object, ...]] | None] = []
    for d, target in enumerate(defences):
        family = family_key(target)
        if family is None:
            keys.append(None)
            continue
        with_blast, without = int(contexts[d, 0]), int(contexts[d, 1])
        pair: tuple[tuple[object, ...], tuple[object, ...]] = ((family, without), (family, without, with_blast))
        keys.append(pair)
        for key in pair:
            if key not in best or _last_count(defences[best[key]]) < _last_count(target):
                best[key] = d
    for d, found in enumerate(keys):
        if found is not None:
            reps[0, d], reps[1, d] = best[found[0]], best[found[1]]
    return reps


def _last_count(target: TargetUnit) -> int:
    return target.groups[-1].count
