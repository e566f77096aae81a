"""Hand-computed unit matchups: the worked check of DAMAGE_RULES.md and one or more per rule.

Each expected value is written out as the arithmetic a player would do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pipeline.units import AttackEntry, AttackSide, Phase, TargetUnit
from tests.units.builders import dist, group, one, side, weapon


def approx(expected: object) -> Any:
    """Exact up to float rounding."""
    return pytest.approx(expected, rel=1e-9, abs=1e-12)


MEQ_PAIR = TargetUnit((group(2, wounds=2, save=3, toughness=4),))


# --- the worked check ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacks", "expected"),
    [
        (1, [5 / 6, 1 / 6, 0.0]),  # P(slay) = 4/6 x 3/6 x 3/6 = 1/6
        (2, [25 / 36, 10 / 36, 1 / 36]),
    ],
)
def test_worked_check(attacks: int, expected: list[float]) -> None:
    # BS3+ S4 vs T4 AP-1 D2 against 2 models W2 Sv3+
    bolt = weapon(attacks=str(attacks), skill=3, strength="4", ap=-1, damage="2")
    assert dist(side((1, bolt)), MEQ_PAIR) == approx(expected)


def test_worked_check_uses_add_like_attacks() -> None:
    # Two models with one attack each are the same two attacks.
    bolt = weapon(attacks="1", skill=3, strength="4", ap=-1, damage="2")
    assert dist(side((2, bolt)), MEQ_PAIR) == approx([25 / 36, 10 / 36, 1 / 36])


@pytest.mark.parametrize(
    ("abilities", "expected"),
    [
        ({}, 10 * 4 / 6 * 3 / 6 * 2 / 6),  # 1.1111
        ({"lethal_hits": True}, (10 / 6 + 10 * 3 / 6 * 3 / 6) * 2 / 6),  # 1.3889
        ({"sustained_hits": "1"}, (10 * 4 / 6 + 10 / 6) * 3 / 6 * 2 / 6),  # 1.3889
    ],
)
def test_per_weapon_worked_checks_on_a_unit_too_big_to_wipe(abilities: dict[str, Any], expected: float) -> None:
    # 10 attacks BS3+ S4 AP0 D1 into 40 W1 Sv3+ models: no carry-over, no wipe: slain = unsaved wounds.
    gun = weapon(attacks="10", **abilities)
    result = one(side((1, gun)), TargetUnit((group(40, wounds=1, save=3),)))
    assert result.expected_slain[0] == approx(expected)
    assert result.wounds_lost[0] == approx(expected)


# --- damage modifiers ------------------------------------------------------------------------------------------


def test_halve_damage_lascannon() -> None:
    # 1 shot BS3+ (4/6), S12 vs T10 wounds on 3+ (4/6), AP-3 vs Sv2+ saves on 5+ (fails 4/6), D6+1 halved
    # (round up): 2..7 -> 1,2,2,3,3,4; a W3 model dies on 3+ (3/6) -> 4/6 x 4/6 x 4/6 x 3/6 = 4/27.
    lascannon = weapon(attacks="1", skill=3, strength="12", ap=-3, damage="D6+1")
    avatar = TargetUnit((group(1, wounds=3, save=2, toughness=10, halve_damage=True),))
    result = one(side((1, lascannon)), avatar)
    assert result.slain_dist[0] == approx([1 - 4 / 27, 4 / 27])
    # wounds lost: P(unsaved) x E[min(halved, 3)] = 64/216 x (1 + 2 + 2 + 3 + 3 + 3)/6
    assert result.wounds_lost[0] == approx(64 / 216 * 14 / 6)
    plain = TargetUnit((group(1, wounds=3, save=2, toughness=10),))
    assert dist(side((1, lascannon)), plain)[1] == approx(64 / 216 * 5 / 6)  # D6+1 >= 3: 5/6


def test_damage_order_halve_then_melta_then_reduction() -> None:
    # D6 halved: 1,1,2,2,3,3; +2 Melta: 3,3,4,4,5,5; -1 reduction: 2,2,3,3,4,4. Torrent, S8 vs T4 (2+: 5/6),
    # no save: a W3 model dies on 3+ (4/6): 5/6 x 4/6.
    melta = weapon(attacks="1", skill=None, torrent=True, strength="8", ap=-4, damage="D6", melta="2")
    model = TargetUnit((group(1, wounds=3, save=7, toughness=4, halve_damage=True, damage_reduction=1),))
    assert dist(side((1, melta)), model, "half_range")[1] == approx(5 / 6 * 4 / 6)
    # without half range no Melta: 1,1,2,2,3,3 -> -1 (min 1): 1,1,1,1,2,2: never 3
    assert dist(side((1, melta)), model)[1] == pytest.approx(0.0, abs=1e-15)


def test_feel_no_pain_per_point_before_the_cap() -> None:
    # Torrent, S8 vs T4 (5/6), no save, D2 into a W1 model with FNP 5+: it dies unless both points are
    # ignored (1/3 x 1/3): 5/6 x 8/9.
    gun = weapon(attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="2")
    model = TargetUnit((group(1, wounds=1, save=7, fnp=5),))
    assert dist(side((1, gun)), model)[1] == approx(5 / 6 * 8 / 9)


# --- saves -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ranged", "fails"), [(True, 4 / 6), (False, 3 / 6)])
def test_melee_invulnerable_save_better_than_ranged(ranged: bool, fails: float) -> None:
    # Sv6+ with 5++ at range and 4++ in melee, AP-3: the invuln applies (5+ fails 4/6, 4+ fails 3/6).
    # BS/WS3+ (4/6), S4 vs T3 wounds on 3+ (4/6), D1 into one W1 model.
    blade = weapon(attacks="1", skill=3, strength="4", ap=-3, damage="1", ranged=ranged)
    banshee = TargetUnit((group(1, wounds=1, save=6, toughness=3, invuln_ranged=5, invuln_melee=4),))
    assert dist(side((1, blade)), banshee)[1] == approx(4 / 6 * 4 / 6 * fails)


def test_cover_adds_one_except_sv3_against_ap0() -> None:
    # BS3+ S4 vs T4: 4/6 x 3/6; Sv4+ AP0 in cover saves on 3+ (fails 2/6); Sv3+ AP0 gets no cover (fails 2/6).
    gun = weapon(attacks="1")
    for save, fails in ((4, 2 / 6), (3, 2 / 6), (5, 3 / 6)):
        model = TargetUnit((group(1, wounds=1, save=save),))
        assert dist(side((1, gun)), model, "cover")[1] == approx(4 / 6 * 3 / 6 * fails)


# --- random characteristics and Blast ---------------------------------------------------------------------------


def test_dice_strength_averages_the_wound_roll() -> None:
    # Torrent, S 2D6 vs T4, no save, one W1 model. Wound on 2+ for S>=8, 3+ for 5..7, 4+ for 4, 5+ for 3,
    # 6+ for 2: (1x1 + 2x2 + 3x3 + (4+5+6)x4 + (5+4+3+2+1)x5) / 216 = 149/216.
    zzap = weapon(attacks="1", skill=None, torrent=True, strength="2D6", ap=-6, damage="1")
    assert dist(side((1, zzap)), TargetUnit((group(1, wounds=1, save=7),)))[1] == approx(149 / 216)


@pytest.mark.parametrize(("size", "attacks"), [(4, 1), (5, 2), (9, 2), (10, 3), (19, 4), (20, 5)])
def test_blast_counts_the_real_target_size(size: int, attacks: int) -> None:
    # A1 Blast + size // 5 attacks; BS2+ (5/6), S4 vs T1 (2+: 5/6), no save, D1, W1: never wiped.
    frag = weapon(attacks="1", skill=2, strength="4", ap=0, damage="1", blast=True)
    target = TargetUnit((group(size, wounds=1, save=7, toughness=1),))
    assert one(side((1, frag)), target).expected_slain[0] == approx(attacks * 25 / 36)


def test_blast_counts_the_attached_leader_too() -> None:
    frag = weapon(attacks="1", skill=2, strength="4", ap=0, damage="1", blast=True)
    target = TargetUnit((group(4, wounds=1, save=7, toughness=1),), leader=(group(1, wounds=1, save=7),))
    assert one(side((1, frag)), target).expected_slain[0] == approx(2 * 25 / 36)


# --- allocation: Leaders, Precision, order ------------------------------------------------------------------------

BODYGUARD_AND_LEADER = TargetUnit(
    (group(5, wounds=1, save=7, points=10.0),), leader=(group(1, wounds=1, save=7, character=True, points=100.0),)
)


@pytest.mark.parametrize(("precision", "points"), [(True, 100.0), (False, 10.0)])
def test_precision_picks_the_attached_leader(precision: bool, points: float) -> None:
    # Torrent S8 vs T4 (5/6), no save, D1: one model dies with 5/6 - the Leader (100 pts) only with Precision.
    sniper = weapon(attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="1", precision=precision)
    result = one(side((1, sniper)), BODYGUARD_AND_LEADER)
    assert result.slain_dist[0] == approx([1 / 6, 5 / 6, 0, 0, 0, 0, 0])
    assert result.points_destroyed[0] == approx(5 / 6 * points)


def test_precision_needs_an_attached_unit() -> None:
    # A CHARACTER model inside a unit (no Leader attached) is allocated last, Precision or not.
    sniper = weapon(attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="1", precision=True)
    squad = TargetUnit((group(5, wounds=1, save=7, points=10.0), group(1, wounds=1, save=7, points=100.0)))
    assert one(side((1, sniper)), squad).points_destroyed[0] == approx(5 / 6 * 10.0)


def test_leader_takes_wounds_only_after_the_bodyguard() -> None:
    # 3 auto-wounding D1 attacks (torrent, S8 vs T4 5/6) vs 2 bodyguards + leader, no saves:
    # the leader dies only if all three wound: (5/6)^3, and then he is the third model slain.
    gun = weapon(attacks="3", skill=None, torrent=True, strength="8", ap=0, damage="1")
    target = TargetUnit((group(2, wounds=1, save=7, points=1.0),), leader=(group(1, wounds=1, save=7, points=50.0),))
    result = one(side((1, gun)), target)
    assert result.p_wipe[0] == approx((5 / 6) ** 3)
    # wounds ~ Binomial(3, 5/6): 1 -> 1 point (15/216), 2 -> 2 points (75/216), 3 -> 2 + 50 points (125/216)
    expected_points = (15 * 1 + 75 * 2 + 125 * 52) / 216
    assert result.points_destroyed[0] == approx(expected_points)


def test_wound_roll_uses_the_bodyguard_toughness() -> None:
    # S4 vs a T4 bodyguard wounds on 4+ even with a T6 leader; 1 shot BS3+, no save, one W1 bodyguard.
    gun = weapon(attacks="1", skill=3, strength="4", ap=0, damage="1")
    target = TargetUnit((group(1, wounds=1, save=7, toughness=4),), leader=(group(1, wounds=5, toughness=6),))
    assert dist(side((1, gun)), target)[1] == approx(4 / 6 * 3 / 6)


def test_mixed_unit_toughness_is_the_majority() -> None:
    # 3 models T3 and 2 models T5: T3 (S4 wounds on 3+); a 1-1 tie between T3 and T5 takes T5 (5+).
    gun = weapon(attacks="1", skill=3, strength="4", ap=0, damage="1")
    majority = TargetUnit((group(3, wounds=1, save=7, toughness=3), group(2, wounds=1, save=7, toughness=5)))
    tie = TargetUnit((group(1, wounds=1, save=7, toughness=3), group(1, wounds=1, save=7, toughness=5)))
    assert dist(side((1, gun)), majority)[1] == approx(4 / 6 * 4 / 6)
    assert dist(side((1, gun)), tie)[1] == approx(4 / 6 * 2 / 6)


def test_damage_carries_over_between_weapons_and_excess_is_lost() -> None:
    # Two auto-hitting, auto-saving-failed weapons into 2 models W3: first D2 (one use), then D2 again.
    # Torrent S8 vs T4 wound 5/6 each. Both wound: 2 + 2 on a W3 model -> 1 slain (excess lost), never 2.
    heavy = weapon("a", attacks="1", skill=None, torrent=True, strength="8", ap=-6, damage="2")
    other = weapon("b", attacks="1", skill=None, torrent=True, strength="8", ap=-5, damage="2")
    result = one(side((1, heavy), (1, other)), TargetUnit((group(2, wounds=3, save=7),)))
    assert result.slain_dist[0] == approx([1 - 25 / 36, 25 / 36, 0.0])
    assert result.wounds_lost[0] == approx(25 / 36 * 3 + 2 * 5 / 6 * 1 / 6 * 2)


# --- Devastating Wounds ----------------------------------------------------------------------------------------


def test_devastating_wounds_wait_for_every_other_attack() -> None:
    # 2 INFANTRY models W2 Sv2+. Weapon 1 (D3, resolved first): torrent, S8 vs T4, Anti-INFANTRY 2+ with
    # Devastating Wounds: every successful wound (5/6) is a 3-mortal-wound attack. Weapon 2 (D1): torrent,
    # S8 (5/6), AP-6 (no save). Deferred: weapon 2's wound lands on model 1 first, then the 3 mortals kill
    # model 1 and the rest is lost. E[wounds lost] = 5/6 x 2 + 1/6 x 5/6 x 1 = 65/36 (immediately
    # resolved it would be 90/36: model 1 dead, then model 2 wounded).
    dev = weapon("a", attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="3",
                 devastating_wounds=True, anti=(("INFANTRY", 2),))  # fmt: skip
    plain = weapon("b", attacks="1", skill=None, torrent=True, strength="8", ap=-6, damage="1")
    target = TargetUnit((group(2, wounds=2, save=2, keywords=frozenset({"INFANTRY"})),))
    result = one(side((1, dev), (1, plain)), target)
    assert result.wounds_lost[0] == approx(65 / 36)
    assert result.slain_dist[0] == approx([1 / 6, 5 / 6, 0.0])


def test_devastating_mortals_beyond_the_model_are_lost() -> None:
    # One devastating wound of D3 against two W1 models kills one model, never two.
    dev = weapon(attacks="1", skill=None, torrent=True, strength="8", ap=0, damage="3",
                 devastating_wounds=True, anti=(("INFANTRY", 2),))  # fmt: skip
    target = TargetUnit((group(2, wounds=1, save=2, keywords=frozenset({"INFANTRY"})),))
    assert dist(side((1, dev)), target) == approx([1 / 6, 5 / 6, 0.0])


def test_lethal_hits_never_trigger_devastating_wounds() -> None:
    # BS3+: a 6 to hit auto-wounds (1/6) and then faces the Sv2+ AP0 save (fails 1/6); 3-5 to hit (3/6) roll
    # to wound, S4 vs T4: 6 is a devastating wound (1/6) -> no save; 4-5 (2/6) face the save.
    gun = weapon(attacks="1", skill=3, strength="4", ap=0, damage="1", lethal_hits=True, devastating_wounds=True)
    model = TargetUnit((group(1, wounds=1, save=2),))
    expected = 1 / 6 * 1 / 6 + 3 / 6 * (1 / 6 + 2 / 6 * 1 / 6)
    assert dist(side((1, gun)), model)[1] == approx(expected)


# --- entries, phases, outputs ------------------------------------------------------------------------------------


def test_fight_phase_uses_the_best_melee_weapon_against_the_target() -> None:
    # Each model picks one weapon: against Sv2+ the AP-2 D2 sword beats the A3 AP0 D1 claws.
    sword = weapon("sword", attacks="2", skill=3, strength="4", ap=-2, damage="2", ranged=False)
    claws = weapon("claws", attacks="3", skill=3, strength="4", ap=0, damage="1", ranged=False)
    chooser = AttackSide((AttackEntry(1, (claws, sword)),), Phase.FIGHT)
    target = TargetUnit((group(10, wounds=2, save=2),))
    assert one(chooser, target).expected_slain[0] == pytest.approx(one(side((1, sword)), target).expected_slain[0])


def test_weapons_of_the_other_phase_do_not_attack() -> None:
    pistol = weapon("p", attacks="1")
    knife = weapon("k", attacks="1", ranged=False)
    target = TargetUnit((group(1, wounds=1, save=7),))
    assert dist(AttackSide((AttackEntry(1, (pistol,)), AttackEntry(1, (knife,))), Phase.FIGHT), target)[1] == (
        approx(4 / 6 * 3 / 6)
    )


def test_summary_numbers() -> None:
    # The worked check with two attacks: P = 25/36, 10/36, 1/36; cost 20 per model, attacker 80 points.
    bolt = weapon(attacks="2", skill=3, strength="4", ap=-1, damage="2")
    target = TargetUnit((group(2, wounds=2, save=3, points=20.0),))
    r = one(side((1, bolt), points=80.0), target)
    assert r.expected_slain[0] == approx(12 / 36)
    assert r.p_any[0] == approx(11 / 36)
    assert r.p_wipe[0] == approx(1 / 36)
    assert (r.slain_p10[0], r.slain_p50[0], r.slain_p90[0]) == (0, 0, 1)
    # wounds: 4/6 x 3/6 x 3/6 = 1/6 per attack lands 2 wounds: 2 x 2 x 1/6 = 2/3 (never capped here)
    assert r.wounds_lost[0] == approx(2 / 3)
    assert r.points_destroyed[0] == approx(12 / 36 * 20)
    assert r.points_destroyed_per_100[0] == approx(12 / 36 * 20 * 100 / 80)
    assert np.isnan(one(side((1, bolt)), target).points_destroyed_per_100[0])
