"""Hand-computed cells: the worked checks of DAMAGE_RULES.md and one or more per ability.

Each expected value is written out as the arithmetic a player would do. Unless a
case says otherwise the weapon is ranged A10 BS3+ S4 AP0 D1 and the target T4
Sv3+ W2 INFANTRY in a unit of 5 (builders' defaults).
"""

from __future__ import annotations

from typing import Any

import pytest

from schemas.records import Points
from tests.damage.builders import cell, run, target, weapon

REL, ABS = 1e-9, 1e-12


def check(actual: dict[str, object], **expected: float) -> None:
    for name, value in expected.items():
        assert actual[name] == pytest.approx(value, rel=REL, abs=ABS), name


# --- the three worked checks -------------------------------------------------------------------------------


def test_worked_check_plain() -> None:
    # 10 attacks, BS 3+, S4 vs T4, Sv 3+, AP 0, D1: 10 × 4/6 × 3/6 × 2/6
    check(
        cell(weapon()),
        attacks=10,
        hits=10 * 4 / 6,
        wounds=10 * 4 / 6 * 3 / 6,
        unsaved=10 * 4 / 6 * 3 / 6 * 2 / 6,
        damage=1.1111111111111112,
        damage_capped=1.1111111111111112,
    )


def test_worked_check_lethal_hits() -> None:
    # crits 10/6 auto-wound; other hits 10 × 3/6 wound on 4+: 10/6 + 10 × 3/6 × 3/6 = 4.1667; × 2/6 = 1.3889
    wounds = 10 / 6 + 10 * 3 / 6 * 3 / 6
    check(cell(weapon(abilities=["lethal hits"])), hits=10 * 4 / 6, wounds=wounds, damage=wounds * 2 / 6)
    assert wounds * 2 / 6 == pytest.approx(1.3889, abs=1e-4)


def test_worked_check_sustained_hits_1() -> None:
    # hits = 10 × 4/6 + 10/6 = 8.3333; damage = 8.3333 × 3/6 × 2/6 = 1.3889
    hits = 10 * 4 / 6 + 10 / 6
    check(
        cell(weapon(abilities=["sustained hits 1"])),
        hits=hits,
        wounds=hits * 3 / 6,
        damage=hits * 3 / 6 * 2 / 6,
    )


def test_wazdakka_psyko_gatler_against_meq() -> None:
    # Seed 000: Psyko-gatler 24" A12 BS4+ S6 AP-2 D2 [assault, sustained hits 1] vs MEQ (T4 Sv3+ W2):
    # hits = 12 × 3/6 + 12 × 1/6 × 1 = 8; S6 > T4 wounds on 3+: 8 × 4/6 = 5.3333;
    # Sv 3+ with AP-2 saves on 5+, fails 4/6: unsaved = 3.5556; D2: damage = 7.1111 (D2 ≤ W2: capped the same)
    gatler = weapon(
        "psyko-gatler",
        attacks="12",
        skill=4,
        strength=6,
        ap=-2,
        damage="2",
        abilities=["assault", "sustained hits 1"],
    )
    meq = target("ref:meq", toughness=4, save=3, wounds=2)
    result = cell(gatler, meq)
    check(result, attacks=12, hits=8, wounds=8 * 4 / 6, unsaved=8 * 4 / 6 * 4 / 6, damage=8 * 4 / 6 * 4 / 6 * 2)
    assert result["damage"] == pytest.approx(7.1111, abs=1e-4)
    assert result["damage_capped"] == pytest.approx(result["damage"])


# --- attacks -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("unit_size", "bonus"), [(1, 0), (4, 0), (5, 1), (10, 2), (11, 2), (20, 4)])
def test_blast_adds_one_attack_per_five_models(unit_size: int, bonus: int) -> None:
    # D6 attacks (3.5) + ⌊models / 5⌋
    result = cell(weapon(attacks="D6", abilities=["blast"]), target(unit_size=unit_size))
    check(result, attacks=3.5 + bonus, hits=(3.5 + bonus) * 4 / 6)


def test_rapid_fire_only_at_half_range() -> None:
    # A1 rapid fire 1: 1 attack, 2 at half range; rapid fire D3 adds its mean 2
    check(cell(weapon(attacks="1", abilities=["rapid fire 1"])), attacks=1)
    check(
        cell(weapon(attacks="1", abilities=["rapid fire 1"]), scenario="half_range"),
        attacks=2,
        hits=2 * 4 / 6,
    )
    check(cell(weapon(attacks="D6", abilities=["rapid fire d3"]), scenario="half_range"), attacks=3.5 + 2)


# --- hit roll ----------------------------------------------------------------------------------------------


def test_torrent_hits_automatically_without_critical_hits() -> None:
    # D6 torrent: 3.5 hits; with lethal hits nothing auto-wounds (no hit roll, no Critical Hit):
    # wounds 3.5 × 3/6 = 1.75, unsaved 1.75 × 2/6
    w = weapon(attacks="D6", skill=None, abilities=["torrent", "lethal hits", "sustained hits 2"])
    check(cell(w), attacks=3.5, hits=3.5, wounds=1.75, unsaved=1.75 * 2 / 6)


def test_heavy_adds_one_to_hit_when_stationary() -> None:
    # BS4+: 3/6 normally, 3+ (4/6) when stationary; BS2+ stays 5/6 (an unmodified 1 always fails)
    check(cell(weapon(skill=4, abilities=["heavy"])), hits=10 * 3 / 6)
    check(cell(weapon(skill=4, abilities=["heavy"]), scenario="stationary"), hits=10 * 4 / 6)
    check(cell(weapon(skill=2, abilities=["heavy"]), scenario="stationary"), hits=10 * 5 / 6)


def test_stealth_subtracts_one_from_ranged_hits_only() -> None:
    # BS3+ against Stealth hits on 4+ (3/6); melee ignores Stealth (4/6); Heavy + Stealth cancel (4/6)
    stealthy = target("sneaky")
    check(cell(weapon(), stealthy, stealth=["sneaky"]), hits=10 * 3 / 6)
    check(cell(weapon(kind="melee"), stealthy, stealth=["sneaky"]), hits=10 * 4 / 6)
    check(cell(weapon(abilities=["heavy"]), stealthy, "stationary", stealth=["sneaky"]), hits=10 * 4 / 6)


def test_hit_modifiers_are_capped_at_minus_one() -> None:
    # Indirect fire at an unseen, stealthy target: -1 (indirect) -1 (stealth) = -2, capped to -1:
    # BS4+ hits on 5+ (2/6), not 6+; the critical 6 still counts: sustained hits 1 adds 10/6 hits
    w = weapon(skill=4, abilities=["indirect fire", "sustained hits 1"])
    check(cell(w, target("sneaky"), "indirect", stealth=["sneaky"]), hits=10 * 2 / 6 + 10 / 6)


def test_sustained_hits_dice_value_adds_its_mean() -> None:
    # sustained hits D3: 10 × 4/6 + 10/6 × 2 = 10 hits; 10 × 3/6 × 2/6 damage
    check(cell(weapon(abilities=["sustained hits d3"])), hits=10, damage=10 * 3 / 6 * 2 / 6)


def test_lethal_and_sustained_extra_hits_still_roll_to_wound() -> None:
    # crit 10/6 auto-wounds, its extra hit (10/6) and the 10 × 3/6 normal hits roll 4+:
    # wounds = 10/6 + (10/6 + 10 × 3/6) × 3/6
    w = weapon(abilities=["lethal hits", "sustained hits 1"])
    check(cell(w), hits=10 * 4 / 6 + 10 / 6, wounds=10 / 6 + (10 / 6 + 10 * 3 / 6) * 3 / 6)


# --- wound roll --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "toughness", "p_wound"),
    [(8, 4, 5 / 6), (5, 4, 4 / 6), (4, 4, 3 / 6), (3, 4, 2 / 6), (4, 8, 1 / 6), (4, 9, 1 / 6), (5, 9, 2 / 6)],
)
def test_wound_table(strength: int, toughness: int, p_wound: float) -> None:
    check(cell(weapon(strength=strength), target(toughness=toughness)), wounds=10 * 4 / 6 * p_wound)


# 2D6 totals 2..12 with weights 1 2 3 4 5 6 5 4 3 2 1 (/36); Strength is rolled per attack.
# vs T5: S >= 10 (6/36) 2+, S 6-9 (20/36) 3+, S 5 (4/36) 4+, S 3-4 (5/36) 5+, S 2 (1/36) 6+
ZZAP_T5 = (6 * 5 + 20 * 4 + 4 * 3 + 5 * 2 + 1 * 1) / 216  # 133/216
# vs T8: S 9-12 (10/36) 3+, S 8 (5/36) 4+, S 5-7 (15/36) 5+, S 2-4 (6/36) 6+
ZZAP_T8 = (10 * 4 + 5 * 3 + 15 * 2 + 6 * 1) / 216  # 91/216


@pytest.mark.parametrize(("toughness", "p_wound"), [(5, ZZAP_T5), (8, ZZAP_T8)])
def test_zzap_gun_strength_2d6_averages_the_wound_roll(toughness: int, p_wound: float) -> None:
    # Zzap gun (Wahapedia): 36" A1 BS5+ S2D6 AP-3 D3; hits 1 × 2/6, wounds = hits × p_wound
    zzap = weapon(attacks="1", skill=5, strength="2D6", ap=-3, damage="3")
    assert zzap.strength.mean == 7.0
    target_profile = target(toughness=toughness, save=4, wounds=3)
    # Sv4+ with AP-3 saves on 7+: every wound is unsaved, each for 3 damage
    check(cell(zzap, target_profile), hits=2 / 6, wounds=2 / 6 * p_wound, damage=2 / 6 * p_wound * 3)


def test_twin_linked_rerolls_with_the_same_rolled_strength() -> None:
    # per Strength total: p + (1 - p) × p; averaged over 2D6 vs T5 (the weights above)
    weights = {5 / 6: 6, 4 / 6: 20, 3 / 6: 4, 2 / 6: 5, 1 / 6: 1}
    rerolled = sum(n * p * (2 - p) for p, n in weights.items()) / 36
    check(cell(weapon(strength="2D6", abilities=["twin-linked"]), target(toughness=5)), wounds=10 * 4 / 6 * rerolled)


def test_lance_adds_one_to_wound_when_charging() -> None:
    # S4 vs T4: 4+ (3/6) -> 3+ (4/6) on the charge; S8 vs T4 stays 2+ (5/6)
    check(cell(weapon(kind="melee", abilities=["lance"])), wounds=10 * 4 / 6 * 3 / 6)
    check(cell(weapon(kind="melee", abilities=["lance"]), scenario="charged"), wounds=10 * 4 / 6 * 4 / 6)
    check(
        cell(weapon(kind="melee", strength=8, abilities=["lance"]), scenario="charged"),
        wounds=10 * 4 / 6 * 5 / 6,
    )


def test_twin_linked_rerolls_failed_wounds() -> None:
    # 4+ to wound: 3/6 + 3/6 × 3/6 = 3/4
    check(cell(weapon(abilities=["twin-linked"])), wounds=10 * 4 / 6 * 3 / 4)


def test_anti_keyword_critical_wounds() -> None:
    # S3 vs T4 wounds on 5+; anti-infantry 4+ makes an unmodified 4+ a Critical Wound: 3/6 against INFANTRY
    w = weapon(strength=3, abilities=["anti-infantry 4+"])
    check(cell(w, target(keywords=["INFANTRY"])), wounds=10 * 4 / 6 * 3 / 6)
    check(cell(w, target(keywords=["VEHICLE"])), wounds=10 * 4 / 6 * 2 / 6)


def test_devastating_wounds_turn_critical_wounds_into_mortal_wounds() -> None:
    # D2: hits 10 × 4/6 = 6.667; critical wounds 6.667/6 -> 2 mortal wounds each = 2.222, no save;
    # other wounds 6.667 × 2/6 = 2.222 save on 3+: unsaved 0.741; damage = 0.741 × 2 + 2.222 = 3.704
    hits = 10 * 4 / 6
    crit, normal = hits / 6, hits * 2 / 6
    check(
        cell(weapon(damage="2", abilities=["devastating wounds"])),
        wounds=crit + normal,
        mortal_wounds=crit * 2,
        unsaved=normal * 2 / 6,
        damage=normal * 2 / 6 * 2 + crit * 2,
    )


def test_twin_linked_devastating_wounds_on_sixes_leave_no_negative_save() -> None:
    # S5 vs T12 wounds on 6s only: every wound is a Critical Wound, so no wound faces a save. Twin-linked
    # re-rolls make wounds and critical wounds equal only up to rounding (1e-17): unsaved is exactly 0.
    # A Twin volkite charger (A2 S5 D2) against a T10 Sv3+ monster read -1.85e-17 before the clip.
    twin = weapon(attacks="2", strength=5, damage="2", abilities=["twin-linked", "devastating wounds"])
    result = cell(twin, target(toughness=10, save=3, wounds=12))
    assert result["unsaved"] == 0.0
    check(result, mortal_wounds=2 * 4 / 6 * (1 / 6 + 5 / 6 * 1 / 6) * 2)


def test_anti_and_devastating_wounds_combine() -> None:
    # anti-infantry 2+ with devastating wounds vs INFANTRY: every wound roll of 2+ is critical;
    # 6.667 hits × 5/6 crits -> mortal wounds D1 each; nothing goes to the saving throw
    hits = 10 * 4 / 6
    result = cell(weapon(abilities=["anti-infantry 2+", "devastating wounds"]), target(save=2, invuln=4))
    check(result, wounds=hits * 5 / 6, mortal_wounds=hits * 5 / 6, unsaved=0, damage=hits * 5 / 6)


# --- saving throw ------------------------------------------------------------------------------------------


def test_invulnerable_save_ignores_ap() -> None:
    # TEQ (Sv2+ 4++) vs AP-3: armour 5+, invuln 4+ is better: fails 3/6; hits 6.667, S4 vs T5 wounds 5+
    wounds = 10 * 4 / 6 * 2 / 6
    check(cell(weapon(ap=-3), target(toughness=5, save=2, invuln=4, wounds=3)), unsaved=wounds * 3 / 6)


def test_invulnerable_save_condition_follows_the_attack_kind() -> None:
    # Knight 3+ / 5++ ranged only vs AP-4: armour 7+ (no save);
    # ranged attacks use the 5++ (fail 4/6), melee attacks fail 6/6
    knight = target(toughness=12, save=3, invuln=5, invuln_condition="ranged", wounds=22)
    wounds = 10 * 4 / 6 * 1 / 6  # S4 vs T12: 6+
    check(cell(weapon(ap=-4), knight), unsaved=wounds * 4 / 6)
    check(cell(weapon(ap=-4, kind="melee"), knight), unsaved=wounds)


def test_a_melee_invulnerable_save_that_differs_is_used_against_melee_attacks() -> None:
    # 4++ against ranged attacks, 3++ against melee (invuln_melee) vs AP-4: armour 7+;
    # ranged attacks fail the 4++ 3/6 of the time, melee attacks the 3++ 2/6
    warden = target(toughness=12, save=3, invuln=4, invuln_condition="ranged", invuln_melee=3, wounds=22)
    wounds = 10 * 4 / 6 * 1 / 6  # S4 vs T12: 6+
    check(cell(weapon(ap=-4), warden), unsaved=wounds * 3 / 6)
    check(cell(weapon(ap=-4, kind="melee"), warden), unsaved=wounds * 2 / 6)


@pytest.mark.parametrize(
    ("profile", "ranged_fails", "melee_fails"),
    [
        # ranged-only 5++ (Knight Warden, Wahapedia 000000857) vs AP-4 (armour 7+): melee gets no invuln
        (dict(invuln=5, invuln_condition="ranged"), 4 / 6, 6 / 6),
        # melee-only 4++ (Wahapedia "This model has a 4+ invulnerable save against melee attacks.")
        (dict(invuln=4, invuln_condition="melee"), 6 / 6, 3 / 6),
        # Howling Banshees (000000594): 5++, "improved to 4+ against melee attacks" -> invuln_melee 4
        (dict(invuln=5, invuln_melee=4), 4 / 6, 3 / 6),
        # Wyches (000000646): 6++, 4++ in melee
        (dict(invuln=6, invuln_melee=4), 5 / 6, 3 / 6),
    ],
)
def test_each_attack_uses_the_invulnerable_save_of_its_own_type(
    profile: dict[str, Any], ranged_fails: float, melee_fails: float
) -> None:
    t = target(toughness=3, save=4, wounds=1, **profile)
    wounds = 10 * 4 / 6 * 4 / 6  # S4 vs T3: 3+
    check(cell(weapon(ap=-4), t), unsaved=wounds * ranged_fails)
    check(cell(weapon(ap=-4, kind="melee"), t), unsaved=wounds * melee_fails)


def test_cover_adds_one_to_armour_against_ranged_attacks() -> None:
    # Sv3+ vs AP-1: 4+ (fails 3/6), in cover 3+ (fails 2/6); melee gets no cover
    wounds = 10 * 4 / 6 * 3 / 6
    check(cell(weapon(ap=-1)), unsaved=wounds * 3 / 6)
    check(cell(weapon(ap=-1), scenario="cover"), unsaved=wounds * 2 / 6)
    check(cell(weapon(ap=-1, kind="melee"), scenario="cover"), unsaved=wounds * 3 / 6)


def test_no_cover_for_3plus_saves_against_ap0() -> None:
    # Sv3+ AP0: stays 3+ in cover; Sv4+ AP0 improves to 3+; Sv2+ AP-1 in cover: 2+ (never better than 2+)
    wounds = 10 * 4 / 6 * 3 / 6
    check(cell(weapon(), scenario="cover"), unsaved=wounds * 2 / 6)
    check(cell(weapon(), target(save=4), "cover"), unsaved=wounds * 2 / 6)
    check(cell(weapon(ap=-1), target(save=2), "cover"), unsaved=wounds * 1 / 6)


def test_ignores_cover() -> None:
    # Sv4+ AP-1 in cover: 4+ (fails 3/6); with ignores cover 5+ (fails 4/6)
    wounds = 10 * 4 / 6 * 3 / 6
    check(cell(weapon(ap=-1), target(save=4), "cover"), unsaved=wounds * 3 / 6)
    check(cell(weapon(ap=-1, abilities=["ignores cover"]), target(save=4), "cover"), unsaved=wounds * 4 / 6)


def test_no_save_profile_in_cover() -> None:
    # Sv7+ (no save): AP0 in cover gives a 6+ save (fails 5/6)
    wounds = 10 * 4 / 6 * 3 / 6
    check(cell(weapon(), target(save=7)), unsaved=wounds)
    check(cell(weapon(), target(save=7), "cover"), unsaved=wounds * 5 / 6)


def test_indirect_fire_against_unseen_target() -> None:
    # BS3+ indirect: -1 -> 4+, and 1-3 always fail: 3/6; target in cover: Sv4+ AP0 -> 3+ (fails 2/6)
    w = weapon(abilities=["indirect fire"])
    hits = 10 * 3 / 6
    check(cell(w, target(save=4), "indirect"), hits=hits, unsaved=hits * 3 / 6 * 2 / 6)
    # BS2+ indirect: 3+ after -1, but 1-3 fail: still 3/6
    check(cell(weapon(skill=2, abilities=["indirect fire"]), target(), "indirect"), hits=hits)
    # visible target: indirect fire changes nothing
    check(cell(w), hits=10 * 4 / 6)


def test_weapons_that_cannot_shoot_an_unseen_target() -> None:
    # without indirect fire, or torrent + indirect fire: no attacks; melee is unaffected by visibility
    check(cell(weapon(), scenario="indirect"), attacks=0, hits=0, damage=0, self_mortal_wounds=0)
    torrent = weapon(skill=None, abilities=["torrent", "indirect fire"])
    check(cell(torrent, scenario="indirect"), attacks=0, damage=0)
    check(cell(weapon(kind="melee"), scenario="indirect"), attacks=10, hits=10 * 4 / 6)


# --- damage ------------------------------------------------------------------------------------------------


def test_melta_adds_damage_at_half_range() -> None:
    # D6 melta 2 vs a vehicle W10: 3.5 per unsaved wound, 5.5 at half range (never above W10: capped the same)
    tank = target(toughness=10, save=3, wounds=10, keywords=["VEHICLE"])
    w = weapon(attacks="1", strength=9, ap=-4, damage="D6", abilities=["melta 2"])
    unsaved = 1 * 4 / 6 * 2 / 6 * 1  # S9 vs T10: 5+; Sv3+ AP-4: no save
    check(cell(w, tank), damage=unsaved * 3.5, damage_capped=unsaved * 3.5)
    check(cell(w, tank, "half_range"), damage=unsaved * 5.5, damage_capped=unsaved * 5.5)


def test_damage_capped_at_wounds_per_attack() -> None:
    # D6 vs W2: E[min(D6, 2)] = (1 + 2 + 2 + 2 + 2 + 2)/6 = 11/6 per unsaved wound
    unsaved = 10 * 4 / 6 * 3 / 6 * 2 / 6
    check(cell(weapon(damage="D6")), damage=unsaved * 3.5, damage_capped=unsaved * 11 / 6)


def test_devastating_mortal_wounds_are_capped_per_attack() -> None:
    # D6 devastating vs W2: each critical wound's mortal wounds stop when the model dies: 11/6 each
    hits = 10 * 4 / 6
    crit, normal = hits / 6, hits * 2 / 6
    result = cell(weapon(damage="D6", abilities=["devastating wounds"]))
    check(
        result,
        mortal_wounds=crit * 3.5,
        damage=(normal * 2 / 6 + crit) * 3.5,
        damage_capped=(normal * 2 / 6 + crit) * 11 / 6,
    )


def test_feel_no_pain_per_point_before_the_cap() -> None:
    # FNP 5+: each point lost with 4/6. D3 vs W2: E[min(Binomial(d, 2/3), 2)] over d = 1, 2, 3:
    # d=1: 2/3; d=2: 2 × 2/3 = 4/3; d=3: E[Bin] 2 minus P(3 lost) = 8/27 -> 2 - 8/27
    unsaved = 10 * 4 / 6 * 3 / 6 * 2 / 6
    capped = (2 / 3 + 4 / 3 + (2 - 8 / 27)) / 3
    check(cell(weapon(damage="D3"), target(fnp=5)), damage=unsaved * 2 * 4 / 6, damage_capped=unsaved * capped)


def test_feel_no_pain_applies_to_mortal_wounds() -> None:
    # anti-infantry 2+ devastating D1 vs FNP 6+: mortal wounds 6.667 × 5/6, each point lost with 5/6
    mortals = 10 * 4 / 6 * 5 / 6
    result = cell(weapon(abilities=["anti-infantry 2+", "devastating wounds"]), target(fnp=6))
    check(result, mortal_wounds=mortals, damage=mortals * 5 / 6, damage_capped=mortals * 5 / 6)


def test_damage_reduction_per_roll_to_a_minimum_of_one() -> None:
    # -1 damage: D3 rolls 1, 2, 3 -> 1, 1, 2: 4/3 (not max(1, 2 - 1) = 1); D1 stays 1
    unsaved = 10 * 4 / 6 * 3 / 6 * 2 / 6
    check(cell(weapon(damage="D3"), target(damage_reduction=1)), damage=unsaved * 4 / 3)
    check(cell(weapon(), target(damage_reduction=1)), damage=unsaved)


def test_melta_then_damage_reduction() -> None:
    # D3 melta 2 at half range vs -1 damage: D3 + 2 - 1 = 2, 3, 4 -> 3
    unsaved = 10 * 4 / 6 * 3 / 6 * 2 / 6
    w = weapon(damage="D3", abilities=["melta 2"])
    check(
        cell(w, target(damage_reduction=1, wounds=10), "half_range"),
        damage=unsaved * 3,
        damage_capped=unsaved * 3,
    )


# Avatar of Khaine (Wahapedia 000000581: T11 Sv2+ 4++ W14, Molten Form: halve the Damage characteristic)
AVATAR: dict[str, Any] = dict(toughness=11, save=2, invuln=4, wounds=14, keywords=["MONSTER"], unit_size=1)
LASCANNON: dict[str, Any] = dict(attacks="1", skill=4, strength=12, ap=-3, damage="D6+1")


def test_lascannon_against_the_avatar_of_khaine_halves_damage() -> None:
    # Lascannon A1 BS4+ S12 AP-3 D D6+1 (issue 13): hits 1 × 3/6; S12 > T11 wounds on 3+: × 4/6;
    # Sv2+ with AP-3 is 5+, the 4++ is better: fails 3/6 -> unsaved = 1/2 × 2/3 × 1/2 = 1/6.
    # D6+1 rolls 2..7; halved rounding up: 1, 2, 2, 3, 3, 4 -> mean 15/6 = 2.5 (unhalved 4.5).
    # damage = 1/6 × 2.5 = 0.41667 (was 1/6 × 4.5 = 0.75 before halving was modelled)
    unsaved = 1 * 3 / 6 * 4 / 6 * 3 / 6
    avatar = target("avatar", **AVATAR, halve_damage=True)
    result = cell(weapon(**LASCANNON), avatar)
    check(result, hits=3 / 6, wounds=3 / 6 * 4 / 6, unsaved=unsaved, damage=unsaved * 2.5, damage_capped=unsaved * 2.5)
    assert result["damage"] == pytest.approx(0.4167, abs=1e-4)
    assert cell(weapon(**LASCANNON), target("avatar", **AVATAR))["damage"] == pytest.approx(0.75)


def test_halve_first_then_melta_then_damage_reduction() -> None:
    # multi-melta D6 melta 2 at half range vs halve damage: D6 halved 1, 1, 2, 2, 3, 3 (mean 2) + 2 = 4
    # (halving after Melta would give (D6 + 2) / 2 rounded up = 3); with -1 damage as well: 3
    unsaved = 10 * 4 / 6 * 3 / 6 * 2 / 6
    w = weapon(damage="D6", abilities=["melta 2"])
    halving = target(wounds=20, halve_damage=True)
    check(cell(w, halving, "half_range"), damage=unsaved * 4)
    check(cell(w, target(wounds=20, halve_damage=True, damage_reduction=1), "half_range"), damage=unsaved * 3)
    check(cell(weapon(), halving), damage=unsaved)  # D1 halved rounds up to 1


def test_devastating_mortal_wounds_are_halved_too() -> None:
    # D6 devastating vs halve damage W20: criticals 6.667/6 inflict D6 halved (mean 2) mortal wounds each
    hits = 10 * 4 / 6
    crit, normal = hits / 6, hits * 2 / 6
    result = cell(weapon(damage="D6", abilities=["devastating wounds"]), target(wounds=20, halve_damage=True))
    check(result, mortal_wounds=crit * 2, damage=(normal * 2 / 6 + crit) * 2)


# --- no-effect abilities, hazardous, unknown ---------------------------------------------------------------


@pytest.mark.parametrize("ability", ["assault", "pistol", "precision", "psychic", "extra attacks", "one shot"])
def test_no_effect_abilities_change_nothing(ability: str) -> None:
    plain, marked = cell(weapon()), cell(weapon(abilities=[ability]))
    assert {k: v for k, v in marked.items()} == plain


def test_hazardous_self_mortal_wounds() -> None:
    # one Hazardous test per use: fails 1 in 6, 3 mortal wounds: 3 × 1/6 = 0.5; damage unchanged
    check(cell(weapon(abilities=["hazardous"])), self_mortal_wounds=0.5, damage=1.1111111111111112)
    check(cell(weapon()), self_mortal_wounds=0)


def test_unknown_ability_has_no_effect() -> None:
    check(cell(weapon(abilities=["bubblechukka"])), damage=1.1111111111111112)


# --- per points --------------------------------------------------------------------------------------------


def _carried(weapon_id: str, models: int, model_count: int, per_model: int = 1) -> dict[str, Any]:
    return {"datasheet_id": "ds", "models": models, "option": f"{models} models", "weapon_id": weapon_id,
            "model_count": model_count, "per_model": per_model}  # fmt: skip


#: options 5 models 100 pts and 10 models 180 pts: the cheapest option costs 100 points.
OPTIONS = [Points(datasheet_id="ds", models=10, cost=180), Points(datasheet_id="ds", models=5, cost=100)]


@pytest.mark.parametrize(
    ("loadouts", "cost_per_copy"),
    [
        ([], 100),  # not in the default loadout: one model takes it, costed at the whole option
        ([_carried("w", 5, 1)], 100),  # a lone special weapon: the squad's 100 points, not one model's 20
        ([_carried("w", 5, 5)], 20),  # every model carries one: 100 / 5
        ([_carried("w", 5, 2, per_model=2)], 25),  # two models with two each: 100 / 4
        ([_carried("w", 10, 10)], 100),  # the larger option's loadout is not the cheapest option's
    ],
)
def test_damage_per_100_points_is_per_copy_of_the_cheapest_option(
    loadouts: list[dict[str, Any]], cost_per_copy: float
) -> None:
    # damage_capped 1.1111 (D1 never exceeds W2) per copy of the weapon
    check(
        cell(weapon(), points=OPTIONS, loadouts=loadouts),
        damage_per_100_points=1.1111111111111112 * 100 / cost_per_copy,
    )
    assert cell(weapon())["damage_per_100_points"] is None


def test_damage_per_100_points_counts_only_the_damage_that_can_land() -> None:
    # D3 against W1 models: damage 3.3333 but damage_capped 1.1111 (one wound per slain model)
    row = cell(weapon(damage="3"), target(wounds=1), points=OPTIONS, loadouts=[_carried("w", 5, 5)])
    check(row, damage=3.3333333333333335, damage_capped=1.1111111111111112)
    check(row, damage_per_100_points=1.1111111111111112 * 100 / 20)


def test_every_scenario_of_every_pair_is_published() -> None:
    matrix = run(
        [weapon("a"), weapon("b")],
        [target("x"), target("y"), target("z")],
        ["default", "half_range", "charged", "stationary", "cover"],
    )
    assert matrix.height == 2 * 3 * 5
    assert matrix.select("weapon_id", "profile_id", "scenario").n_unique() == 30


def test_all_wounds_critical_leaves_no_negative_unsaved() -> None:
    """Twin volkite caliver (A2 BS3+ S5 AP0 D2, Devastating Wounds, Twin-linked) against T10: wounds only on
    a 6, so every wound is a Critical Wound. `unsaved` is exactly 0 (it came out -9e-18 and failed the
    matrix gate on the Wahapedia export: 2,207 cells per scenario)."""
    gun = weapon("w", attacks="2", skill=3, strength=5, ap=0, damage="2",
                 abilities=["devastating wounds", "twin-linked"])  # fmt: skip
    row = run([gun], [target(toughness=10, save=2, wounds=12)], ["default"]).row(0, named=True)
    hits, crit_per_hit = 2 * 4 / 6, 1 / 6 + 5 / 6 * 1 / 6  # 6 to wound, failures re-rolled
    assert row["unsaved"] == 0.0
    assert row["mortal_wounds"] == pytest.approx(hits * crit_per_hit * 2)
