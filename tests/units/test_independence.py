"""What a pair's numbers depend on (docs/units.md#partitions): with `operators=False` only its own job and the
defence it is solved on (its family's representative among the call's targets), never on the other pairs of
the call, their number, the batches they fall in or the width of their summaries."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.units import AttackSide, TargetUnit, UnitEngine, compute_matchups
from pipeline.units.engine import solved_on
from pipeline.units.results import Matchups, gathered_row_sums, row_sums, weighted_rows
from tests.units.builders import group, side, weapon
from tests.units.test_fast_path import COLUMNS, sides
from tests.units.test_invariants import groups


@st.composite
def families(draw: Any) -> list[TargetUnit]:
    """Targets from two profiles at several sizes (families), mixed units and attached Leaders."""
    profiles = [draw(groups()) for _ in range(2)]
    units = [TargetUnit((replace(p, count=c),)) for p in profiles for c in draw(st.sets(st.integers(1, 6), min_size=1))]
    units += [TargetUnit((draw(groups()), draw(groups()))) for _ in range(draw(st.integers(0, 2)))]
    units += [TargetUnit((draw(groups()),), (draw(groups()),)) for _ in range(draw(st.integers(0, 2)))]
    order = draw(st.permutations(range(len(units))))
    return [units[i] for i in order]


def _rows(result: Matchups, attackers: list[int], targets: list[int], n_targets: int) -> dict[str, np.ndarray]:
    """The columns of pairs (attacker, target) of a full grid result (attacker-major)."""
    index = np.array([a * n_targets + t for a in attackers for t in targets], dtype=np.int64)
    return {name: np.asarray(getattr(result, name))[index] for name in COLUMNS}


def _same_bits(one: dict[str, np.ndarray], other: dict[str, np.ndarray]) -> None:
    for name in COLUMNS:
        assert one[name].tobytes() == other[name].tobytes(), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranged=st.booleans(), data=st.data())
def test_a_target_subset_with_its_representatives_gives_the_same_bits(ranged: bool, data: Any) -> None:
    attackers: list[AttackSide] = [data.draw(sides(ranged)) for _ in range(data.draw(st.integers(1, 4)))]
    targets = data.draw(families())
    engine = UnitEngine("default")
    whole = compute_matchups(attackers, targets, engine=engine, operators=False)
    chosen = sorted(data.draw(st.sets(st.integers(0, len(targets) - 1), min_size=1)))
    reps = solved_on(engine, attackers, targets).representative[:, chosen]
    call = sorted(set(chosen) | set(reps.ravel().tolist()))
    part = compute_matchups(attackers, [targets[i] for i in call], engine=UnitEngine("default"), operators=False)
    local = [call.index(i) for i in chosen]
    attacking = list(range(len(attackers)))
    _same_bits(_rows(part, attacking, local, len(call)), _rows(whole, attacking, chosen, len(targets)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranged=st.booleans(), data=st.data())
def test_an_attacker_subset_gives_the_same_bits(ranged: bool, data: Any) -> None:
    """Without Anti weapons (Anti keywords decide which targets are one defence, so which are one family)."""
    drawn = [data.draw(sides(ranged)) for _ in range(data.draw(st.integers(2, 5)))]
    attackers = [
        replace(s, entries=tuple(replace(e, choices=tuple(replace(w, anti=()) for w in e.choices)) for e in s.entries))
        for s in drawn
    ]
    targets = data.draw(families())
    whole = compute_matchups(attackers, targets, engine=UnitEngine("default"), operators=False)
    chosen = sorted(data.draw(st.sets(st.integers(0, len(attackers) - 1), min_size=1)))
    part = compute_matchups([attackers[i] for i in chosen], targets, engine=UnitEngine("default"), operators=False)
    every = list(range(len(targets)))
    _same_bits(_rows(part, list(range(len(chosen))), every, len(targets)), _rows(whole, chosen, every, len(targets)))


def test_row_sums_do_not_depend_on_padding_neighbours_or_layout() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        row = rng.random(n)
        alone = weighted_rows(row[None], np.arange(n, dtype=np.float64))[0]
        for extra in (1, 3, 8):
            padded = np.concatenate([row, np.zeros(extra)])
            batch = np.stack([rng.random(n + extra), padded, rng.random(n + extra)])
            weights = np.arange(n + extra, dtype=np.float64)
            assert weighted_rows(batch, weights)[1] == alone
            assert weighted_rows(np.asfortranarray(batch), weights)[1] == alone
        grouped = rng.random((1, n, 1))
        wider = np.concatenate([np.concatenate([grouped, rng.random((1, n, 2))], axis=2), rng.random((2, n, 3))])
        assert row_sums(grouped)[0, 0] == row_sums(wider)[0, 0]
    assert row_sums(np.zeros((2, 0))).shape == (2,)


@pytest.mark.parametrize(("rows", "states", "table_states", "groups"), [(5, 7, 7, 1), (9, 4, 11, 3), (1, 30, 30, 2)])
def test_gathered_row_sums_are_the_row_sums_of_the_gathered_products(
    rows: int, states: int, table_states: int, groups: int
) -> None:
    """The same bits as `row_sums(weights[:, :, None] * table[view, :S])`, which the summaries built before
    (magnitudes 1e-6..1e6, so that another order of the terms rounds differently)."""
    rng = np.random.default_rng(rows * 100 + states)
    weights = rng.random((rows, states)) * 10.0 ** rng.integers(-6, 7, (rows, states))
    table = rng.random((6, table_states, groups)) * 3
    view = rng.integers(0, 6, rows)
    expected = row_sums(weights[:, :, None] * table[view, :states])
    found = gathered_row_sums(weights, table, view)
    assert found.shape == (rows, groups)
    assert found.tobytes() == expected.tobytes()
    assert gathered_row_sums(np.zeros((3, 0)), table, view[:3]).shape == (3, groups)
    flat = table[:, :, 0]  # a [V, S'] table (wounds lost per state): one number per row
    assert gathered_row_sums(weights, flat, view).tobytes() == row_sums(weights * flat[view, :states]).tobytes()


def test_solved_on_takes_one_phase() -> None:
    shooting, fight = side((1, weapon("g"))), side((1, weapon("k", ranged=False)))
    targets = [TargetUnit((group(2),)), TargetUnit((group(5),)), TargetUnit((group(5, toughness=5),))]
    solved = solved_on(UnitEngine(), [shooting], targets)
    # 2 models are solved on 5 (one family) unless a job has a Blast step (5 models add an attack: on their own)
    assert solved.representative.tolist() == [[1, 1, 2], [0, 1, 2]]
    assert len(solved.defences) == 3 and solved.defence_of.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="one phase"):
        solved_on(UnitEngine(), [shooting, fight], targets)
