"""A unit's golden points options (`unit_points`): per model count, the freshest source's cost."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.reconcile.members import Member
from pipeline.reconcile.precedence import Offer, choose
from pipeline.reconcile.profiles import render
from schemas.golden import UnitPoints, UnitProfile
from schemas.records import Points


def _options(member: Member) -> dict[int, Points]:
    """The member's cheapest option per model count."""
    best: dict[int, Points] = {}
    for option in member.points:
        if option.models not in best or option.cost < best[option.models].cost:
            best[option.models] = option
    return best


def composition_of(models: int, profiles: Sequence[UnitProfile]) -> dict[str, int] | None:
    """Models of each profile in an option of `models` models, when the counts decide it: every
    profile has a count range and at most one can vary (`1 Sergeant` + `4-9 Terminators`)."""
    if not profiles or any(p.min_models is None or p.max_models is None for p in profiles):
        return None
    fixed = {p.profile_name: p.min_models for p in profiles if p.min_models == p.max_models}
    varying = [p for p in profiles if p.min_models != p.max_models]
    rest = models - sum(n for n in fixed.values() if n is not None)
    if not varying:
        return {k: v for k, v in fixed.items() if v is not None} if rest == 0 else None
    only = varying[0]
    if len(varying) > 1 or only.min_models is None or only.max_models is None:
        return None
    if not only.min_models <= rest <= only.max_models:
        return None
    return {**{k: v for k, v in fixed.items() if v is not None}, only.profile_name: rest}


def unit_points(unit_id: str, members: Sequence[Member], profiles: Sequence[UnitProfile]) -> list[UnitPoints]:
    by_models: dict[int, list[tuple[Member, Points]]] = {}
    for member in members:
        for models, option in _options(member).items():
            by_models.setdefault(models, []).append((member, option))
    rows = []
    for models in sorted(by_models):
        offers = [
            Offer(p.source_id or m.sheet.source_id, m.dating, render("points", p.cost), m.datasheet_id, p)
            for m, p in by_models[models]
        ]
        choice = choose(offers)
        chosen: Points = choice.typed
        rows.append(
            UnitPoints(
                unit_id=unit_id,
                models=models,
                cost=chosen.cost,
                datasheet_id=chosen.datasheet_id,
                description=chosen.description,
                composition=composition_of(models, profiles),
                source_id=chosen.source_id,
                line=chosen.line,
                provenance={"cost": choice.provenance},
            )
        )
    return rows
