"""The engine's formulas as plain Python, one cell at a time (bench baseline).

Same rules and same closed forms as `pipeline/damage/engine.py`, written the way
a per-matchup calculator would: scalars, loops over the dice faces. The bench
times it per cell and checks it agrees with the engine on its sample.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

from pipeline.damage.scenarios import Scenario
from schemas.dice import parse_dice


def _faces(text: str | None) -> list[int]:
    """Every equally likely total of a dice text (`D6+1` -> 2..7)."""
    if not text:
        return [0]
    dice = parse_dice(text)
    rolls = itertools.product(range(1, dice.sides + 1), repeat=dice.n) if dice.n else [()]
    return [sum(r) + dice.plus for r in rolls]


def _p(need: int) -> float:
    return (7 - min(max(need, 2), 7)) / 6.0


def _wound_need(strength: int, toughness: int) -> int:
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    return 6 if 2 * strength <= toughness else 5


def _per_attack_damage(w: dict[str, Any], t: dict[str, Any], sc: Scenario) -> tuple[float, float, float]:
    """(E[D_eff], E[D after FNP], E[min(Bin(D_eff, p_lose), W)]) by enumerating the dice."""
    melta = w.get("melta") if sc.half_range else None
    totals = [d + m for d in _faces(w["damage"]) for m in _faces(melta)]
    reduction = t.get("damage_reduction") or 0
    p_lose = (min(t.get("fnp") or 7, 7) - 1) / 6.0
    mean = capped = 0.0
    for total in totals:
        d = max(1, total - reduction) if reduction else total
        mean += d / len(totals)
        capped += sum(
            comb(d, k) * p_lose**k * (1 - p_lose) ** (d - k) * min(k, t["wounds"]) for k in range(d + 1)
        ) / len(totals)
    return mean, mean * p_lose, capped


def plain_cell(w: dict[str, Any], t: dict[str, Any], sc: Scenario) -> dict[str, float]:
    """One cell: `w` has weapon columns plus parsed abilities, `t` the target columns."""
    ranged = w["kind"] == "ranged"
    auto_hit = w["torrent"] or w["skill"] is None
    if ranged and not sc.target_visible and (not w["indirect_fire"] or auto_hit):
        return dict.fromkeys(
            (
                "attacks",
                "hits",
                "wounds",
                "mortal_wounds",
                "unsaved",
                "damage",
                "damage_capped",
                "self_mortal_wounds",
            ),
            0.0,
        )
    unseen = ranged and w["indirect_fire"] and not sc.target_visible
    attacks = w["attacks_mean"] + (w["blast"] * ((t.get("unit_size") or 1) // 5)) + sc.half_range * w["rapid_fire"]
    modifier = int(w["heavy"] and sc.stationary) - int(bool(t.get("stealth")) and ranged) - int(unseen)
    modifier = max(-1, min(1, modifier))
    p_hit = 1.0 if auto_hit else _p(max(w["skill"] - modifier, 4 if unseen else 2))
    p_crit = 0.0 if auto_hit else 1 / 6
    hits = attacks * (p_hit + p_crit * w["sustained_hits"])
    auto_wounds = attacks * p_crit * w["lethal_hits"]
    crit_need = min([6] + [thr for kw, thr in w["anti"].items() if kw in (t.get("keywords") or [])])
    # Strength is rolled per attack: average the wound roll (and its Twin-linked re-roll) over the faces.
    strengths = _faces(str(w["strength"]))
    needs = [max(2, _wound_need(s, t["toughness"]) - int(w["lance"] and sc.charged)) for s in strengths]
    successes = [_p(min(need, crit_need)) for need in needs]
    rerolls = [2 - p if w["twin_linked"] else 1.0 for p in successes]
    p_critical = _p(crit_need)
    rolls = hits - auto_wounds
    wounds = auto_wounds + rolls * sum(p * r for p, r in zip(successes, rerolls, strict=True)) / len(needs)
    devastating = rolls * p_critical * sum(rerolls) / len(needs) if w["devastating_wounds"] else 0.0
    cover = (sc.cover or unseen) and ranged and not w["ignores_cover"] and not (t["save"] <= 3 and w["ap"] == 0)
    armour = min(max(t["save"] - w["ap"] - int(cover), 2), 7)
    condition = t.get("invuln_condition")
    invuln_applies = t.get("invuln") and condition in (None, "ranged" if ranged else "melee")
    save_need = min(armour, t["invuln"] if invuln_applies else 7)
    unsaved = (wounds - devastating) * (save_need - 1) / 6
    mean, after_fnp, capped = _per_attack_damage(w, t, sc)
    return {
        "attacks": attacks, "hits": hits, "wounds": wounds, "mortal_wounds": devastating * mean,
        "unsaved": unsaved, "damage": (unsaved + devastating) * after_fnp,
        "damage_capped": (unsaved + devastating) * capped,
        "self_mortal_wounds": 0.5 if w["hazardous"] else 0.0,
    }  # fmt: skip
