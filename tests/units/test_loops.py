"""The compiled loops (`pipeline.units.loops`) give the NumPy code's results to the bit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from pipeline.units import AttackSide, TargetUnit, loops
from pipeline.units.engine import compute_matchups
from pipeline.units.results import gathered_row_sums
from pipeline.units.solve import Step, capped_kernel, run_step
from tests.units.test_fast_path import COLUMNS, grids

ROOT = Path(__file__).resolve().parents[2]


def both(compute):
    """compute() with the compiled loops, then with NumPy only."""
    assert loops.ENABLED
    compiled = compute()
    with loops.numpy_only():
        reference = compute()
    return compiled, reference


def random_step(rng: np.random.Generator, batch: int, size: int, band: int, counts: int, channels: int,
                two_lines: bool, stride: int) -> Step:  # fmt: skip
    losses = rng.random((batch, size, band)) ** 3  # uneven pmfs: some losses near zero
    losses /= losses.sum(axis=2, keepdims=True)
    remaining = rng.integers(0, band + 2, size=(batch, size))
    on_leader = rng.random((batch, size)) < 0.4 if two_lines else np.zeros((batch, size), dtype=bool)
    kernel = capped_kernel(losses, remaining, on_leader, stride, two_lines)
    pmf = rng.random((batch, counts, channels))
    return Step(pmf / pmf.sum(axis=(1, 2), keepdims=True), kernel, None)


CASES = [
    # batch, states, band, wound counts, devastating counts, pending, two lines, stride
    pytest.param(40, 12, 3, 9, 1, 1, False, 1, id="one-line"),
    pytest.param(1, 7, 2, 14, 1, 1, False, 1, id="one-vector"),
    pytest.param(25, 16, 4, 11, 3, 1, False, 1, id="devastating-counts"),
    pytest.param(30, 15, 3, 10, 2, 3, False, 1, id="pending-axis"),
    pytest.param(20, 12, 3, 13, 1, 2, True, 3, id="two-lines"),
    pytest.param(33, 20, 5, 17, 2, 2, True, 4, id="two-lines-devastating"),
]


@pytest.mark.parametrize(("batch", "size", "band", "counts", "channels", "pending", "two_lines", "stride"), CASES)
def test_chain_step_equals_numpy(batch: int, size: int, band: int, counts: int, channels: int, pending: int,
                                 two_lines: bool, stride: int) -> None:  # fmt: skip
    rng = np.random.default_rng(size * 1000 + counts)
    step = random_step(rng, batch, size, band, counts, channels, two_lines, stride)
    states = rng.random((batch, pending, size)) * (np.arange(size) < size // 2)  # mass in the lower half only
    given = states.copy()
    compiled, reference = both(lambda: run_step(step, states))
    assert np.array_equal(states, given)  # the wounds' buffers are copies (one vector: the transpose is a view)
    assert compiled.shape == (batch, channels * pending, size)
    assert compiled.tobytes() == reference.tobytes()
    assert compiled.sum() > 0


def test_absorbed_vectors_are_lumped_the_same_way() -> None:
    """Every wound moves one state up until the top (absorbing) state: after a few wounds no mass is left to
    move, the check lumps the vectors' remaining counts at once, in both versions."""
    batch, size, counts = 6, 4, 12
    losses = np.zeros((batch, size, 2))
    losses[:, :, 1] = 1.0
    remaining = np.tile(np.array([1, 1, 1, 0]), (batch, 1))  # the top state takes nothing more
    kernel = capped_kernel(losses, remaining, np.zeros((batch, size), dtype=bool), 1, False)
    assert kernel.stay[:, :3].max() == 0.0 and np.all(kernel.stay[:, 3] == 1.0)
    pmf = np.random.default_rng(3).random((batch, counts, 1))
    step = Step(pmf / pmf.sum(axis=1, keepdims=True), kernel, None)
    states = np.zeros((batch, 1, size))
    states[:, 0, 0] = 1.0
    compiled, reference = both(lambda: run_step(step, states))
    assert compiled.tobytes() == reference.tobytes()
    # n wounds put the mass at state min(n, 3): the top state holds P(N >= 3)
    np.testing.assert_allclose(compiled[:, 0, 3], step.counts[:, 3:, 0].sum(axis=1), rtol=1e-15)


@pytest.mark.parametrize("groups", [None, 1, 4])
def test_gathered_row_sums_equal_numpy(groups: int | None) -> None:
    rng = np.random.default_rng(11)
    weights = rng.random((50, 9)) * 10.0 ** rng.integers(-6, 7, size=(50, 9))
    shape = (7, 12) if groups is None else (7, 12, groups)
    table = rng.random(shape) * 10.0 ** rng.integers(-6, 7, size=shape)
    rows = rng.integers(0, 7, size=50)
    compiled, reference = both(lambda: gathered_row_sums(weights, table, rows))
    assert compiled.shape == (50, *shape[2:])
    assert compiled.tobytes() == reference.tobytes()


def test_numpy_only_restores_the_setting() -> None:
    with pytest.raises(ZeroDivisionError), loops.numpy_only():
        assert not loops.ENABLED
        _ = 1 / 0
    assert loops.ENABLED


@pytest.mark.parametrize("scenario", ["default", "cover"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=grids())
def test_the_engine_gives_the_same_bits_compiled(
    scenario: str, grid: tuple[list[AttackSide], list[TargetUnit]]
) -> None:
    """Whole grids (choices, Devastating Wounds, Precision on attached Leaders, Blast): every column and every
    distribution equal to the byte; the compiled kernels (`loops._chain_kernel`) included."""
    attackers, defenders = grid
    compiled, reference = both(lambda: compute_matchups(attackers, defenders, scenario=scenario))
    for name in (*COLUMNS, "job_dist"):
        assert getattr(compiled, name).tobytes() == getattr(reference, name).tobytes(), name


def test_the_engine_compiles_each_loop_once() -> None:
    """In a fresh process, grids of one and two lines, a family, Devastating Wounds and Precision compile (or
    load) each loop for one set of argument types: a second signature would cost every forked process another
    compile."""
    code = """
from pipeline.units import TargetUnit, loops
from pipeline.units.engine import compute_matchups
from tests.units.builders import group, side, weapon
gun = weapon("gun", attacks="D6", strength="5", ap=-1, damage="2", devastating_wounds=True, precision=True)
body = (group(5, wounds=2, save=3, toughness=4),)
leader = (group(1, wounds=5, save=3, toughness=4, character=True),)
ten = (group(10, wounds=2, save=3, toughness=4),)  # with `body`, a family: the smaller one's rows are lumped
compute_matchups([side((5, gun)), side((1, weapon("las", damage="D6")))], [TargetUnit(body, leader), TargetUnit(body),
                 TargetUnit(ten)])
print(sorted((name, len(f.signatures)) for name, f in loops._COMPILED.items()))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[('_chain_kernel', 1), ('_gathered_row_sums', 1), ('_wounds', 1)]"


def test_warm_loops_loads_the_loops_the_engine_then_uses() -> None:
    """After `warm_loops` (the run calls it before the matchup processes fork) the engine's grids add no
    signature: a process forked then loads nothing."""
    code = """
from pipeline.units import TargetUnit, loops
from pipeline.units.engine import compute_matchups
from pipeline.units.warm import warm_loops
from tests.units.builders import group, side, weapon
warm_loops()
warmed = sorted((name, len(f.signatures)) for name, f in loops._COMPILED.items())
gun = weapon("gun", attacks="2D6", strength="8", ap=-2, damage="D3+1", devastating_wounds=True, sustained_hits="1")
melee = weapon("claw", ranged=False, attacks="4", strength="5", ap=-1, damage="2", precision=True, lethal_hits=True)
body = (group(4, wounds=3, save=2, toughness=5), group(1, wounds=4, save=2, toughness=5))
leader = (group(1, wounds=6, save=2, toughness=5, character=True),)
for operators in (False, True):
    compute_matchups([side((3, gun)), side((5, melee))], [TargetUnit(body, leader), TargetUnit(body)],
                     operators=operators)
print(warmed == sorted((name, len(f.signatures)) for name, f in loops._COMPILED.items()), warmed)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "True [('_chain_kernel', 1), ('_gathered_row_sums', 1), ('_wounds', 1)]"


def test_warm_loops_does_nothing_without_the_compiled_loops() -> None:
    """With the NumPy code only (`dataslate matchup`), a fresh process neither imports Numba nor loads a loop."""
    code = """
import sys
from pipeline.units import loops
from pipeline.units.warm import warm_loops
with loops.numpy_only():
    warm_loops()
print("numba" in sys.modules, loops._COMPILED)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "False {}"
