"""Dedupe keys: what a matchup's distribution depends on, and nothing else (docs/units.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from pipeline.units.model import NO_ROLL, AttackSide, ModelGroup, Phase, TargetUnit
from pipeline.units.steps import StepKey, ordered_steps


def anti_keywords(sides: Iterable[AttackSide]) -> frozenset[str]:
    """Every keyword some weapon of these sides has Anti for."""
    return frozenset(k for side in sides for e in side.entries for w in e.choices for k, _ in w.anti)


@lru_cache(maxsize=1 << 16)
def _group(group: ModelGroup, phase: Phase, keywords: frozenset[str]) -> ModelGroup:
    """The group as the distribution reads it (cached: every partition asks again for every target)."""
    invuln = group.invuln(phase)
    return replace(
        group,
        invuln_ranged=invuln if phase is Phase.SHOOTING else NO_ROLL,
        invuln_melee=invuln if phase is Phase.FIGHT else NO_ROLL,
        character=False,
        stealth=group.stealth and phase is Phase.SHOOTING,
        keywords=group.keywords & keywords,
        points=0.0,
    )


def defence_signature(target: TargetUnit, phase: Phase, keywords: frozenset[str]) -> TargetUnit:
    """The target reduced to what the distribution reads in this phase. Of the Anti keywords only those the
    target has can matter (a group keeps `keywords & its own`), so the signature is cached by those: every
    partition asks again for every target with its own Anti set, and most of those sets meet a target alike."""
    return _signature(target, phase, keywords & target.keywords)


@lru_cache(maxsize=1 << 16)
def _signature(target: TargetUnit, phase: Phase, keywords: frozenset[str]) -> TargetUnit:
    return TargetUnit(
        tuple(_group(g, phase, keywords) for g in target.groups),
        tuple(_group(g, phase, keywords) for g in target.leader),
    )


def attack_signature(side: AttackSide) -> tuple[object, ...]:
    """Phase plus resolved steps; sides with weapon choices keep their entries (resolved per target)."""
    if any(len(e.choices) > 1 for e in side.entries):
        return (side.phase, "choices", side.entries)
    steps: tuple[StepKey, ...] = ordered_steps(side.phase, [(e.models, e.choices[0]) for e in side.entries])
    return (side.phase, "steps", steps)
