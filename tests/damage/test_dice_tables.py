"""Exact per-attack damage expectations: dice distributions, damage reduction, FNP and the W cap."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.damage.dice_tables import damage_table, dice_pmf, fnp_lose_probability, halved, raw_damage_pmfs


@pytest.mark.parametrize(("dice", "mean", "support"), [
    ((0, 0, 3), 3.0, {3}), ((1, 3, 0), 2.0, {1, 2, 3}), ((1, 6, 1), 4.5, set(range(2, 8))),
    ((2, 6, 0), 7.0, set(range(2, 13))), ((2, 3, 0), 4.0, set(range(2, 7))),
])  # fmt: skip
def test_dice_pmf(dice: tuple[int, int, int], mean: float, support: set[int]) -> None:
    pmf = dice_pmf(*dice)
    assert pmf.sum() == pytest.approx(1.0)
    assert float(np.dot(pmf, np.arange(len(pmf)))) == pytest.approx(mean)
    assert set(np.nonzero(pmf)[0].tolist()) == support


def test_melta_adds_its_dice_to_damage() -> None:
    # D6 + melta D3: mean 3.5 + 2
    pmf = raw_damage_pmfs([(1, 6, 0, 1, 3, 0)])[0]
    assert float(np.dot(pmf, np.arange(len(pmf)))) == pytest.approx(5.5)


def test_fnp_lose_probability() -> None:
    assert [fnp_lose_probability(f) for f in (2, 4, 5, 6, 7)] == pytest.approx([1 / 6, 3 / 6, 4 / 6, 5 / 6, 1])


def test_table_values() -> None:
    # 2D6 vs W3, no FNP: E[min(2D6, 3)] = 3 - P(2) × 1 = 3 - 1/36
    # D6 with -1 damage vs W10: 1, 1, 2, 3, 4, 5 -> 16/6
    # D3+3 vs W4 FNP 6+: every point lost with 5/6; E[min(Bin(d, 5/6), 4)] averaged over d = 4, 5, 6
    table = damage_table(
        [(2, 6, 0, 0, 0, 0), (1, 6, 0, 0, 0, 0), (1, 3, 3, 0, 0, 0)],
        [(0, 7, 3, False), (1, 7, 10, False), (0, 6, 4, False)],
    )
    assert table.capped[0, 0] == pytest.approx(3 - 1 / 36)
    assert table.mean[1, 1] == pytest.approx(16 / 6)
    assert table.capped[1, 1] == pytest.approx(16 / 6)
    p = 5 / 6

    def capped(d: int) -> float:
        from math import comb

        return sum(comb(d, k) * p**k * (1 - p) ** (d - k) * min(k, 4) for k in range(d + 1))

    assert table.capped[2, 2] == pytest.approx((capped(4) + capped(5) + capped(6)) / 3)
    assert table.after_fnp[2, 2] == pytest.approx(5 * p)


def test_halving_rounds_up() -> None:
    # D6 halved: 1, 1, 2, 2, 3, 3; D6+1 halved: 1, 2, 2, 3, 3, 4
    assert halved(dice_pmf(1, 6, 0)) == pytest.approx(np.array([0, 2, 2, 2, 0, 0, 0]) / 6)
    assert halved(dice_pmf(1, 6, 1)) @ np.arange(8) == pytest.approx(15 / 6)


@pytest.mark.parametrize(
    ("weapon", "target", "mean"),
    [
        ((1, 6, 1, 0, 0, 0), (0, 7, 14, True), 15 / 6),  # lascannon D6+1 halved: 1, 2, 2, 3, 3, 4
        ((1, 6, 0, 0, 0, 2), (0, 7, 14, True), 2 + 2),  # halve first, then Melta 2: (1, 1, 2, 2, 3, 3) + 2
        ((1, 6, 0, 0, 0, 2), (1, 7, 14, True), 2 + 2 - 1),  # then -1 reduction: never below 1 here
        ((0, 0, 1, 0, 0, 0), (1, 7, 14, True), 1),  # D1 halved is 1, minus 1 is still 1
        ((0, 0, 3, 0, 0, 0), (1, 7, 14, True), 1),  # D3 -> 2 -> 1
    ],
)
def test_halve_then_melta_then_reduction(
    weapon: tuple[int, int, int, int, int, int], target: tuple[int, int, int, bool], mean: float
) -> None:
    assert damage_table([weapon], [target]).mean[0, 0] == pytest.approx(mean)
