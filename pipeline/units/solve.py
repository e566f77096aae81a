"""The batched Markov chain: a batch of pairs, one state vector each, weapon steps applied in order.

A wound is one step of a chain on the flat state index: from state s it stays
(saved, or every point ignored) or moves j (capped at the receiving model's
remaining wounds) along the line of the model it is allocated to. A weapon step
with a random number N of normal wounds maps v to sum_n P(N = n) K^n v.
Devastating wounds are carried as extra "pending" axes (their count, jointly
with the normal wounds of the same weapon) and applied after every step, in
step order, by Horner's rule: sum_c D^c v_c. Every array holds a whole batch,
so numpy runs one operation per (wound, damage value), never per pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.units import loops
from pipeline.units.layout import BoolArray, FloatArray, IntArray
from pipeline.units.loops import ABSORBED, CHECK_EVERY


@dataclass(frozen=True, slots=True)
class Kernel:
    """Per-wound transition of a batch: stay [B, S]; moves by j = 1.. along each line [J-1, B, S]."""

    stay: FloatArray
    body: FloatArray
    leader: FloatArray | None
    stride: int

    @property
    def live(self) -> BoolArray:
        return self.stay < 1.0


def capped_kernel(
    losses: FloatArray,
    remaining: IntArray,
    on_leader: BoolArray,
    stride: int,
    two_lines: bool,
    at_cap: FloatArray | None = None,
) -> Kernel:
    """Kernel from per-state loss pmfs [B, S, J] and the receiving model's remaining wounds [B, S].

    Loss beyond the remaining wounds is lost: the mass of j >= r lands on r (`at_cap` [B, S]: P(loss >= r),
    computed here unless the caller has it from a smaller table).
    """
    width = int(min(losses.shape[2], max(1, int(remaining.max(initial=0)) + 1)))
    if at_cap is None:
        tails = np.cumsum(losses[:, :, ::-1], axis=2)[:, :, ::-1]  # tails[..., j] = P(loss >= j)
        at_cap = np.take_along_axis(tails, np.minimum(remaining, losses.shape[2] - 1)[:, :, None], axis=2)[:, :, 0]
    j = np.arange(width)
    r = remaining[:, :, None]
    capped = np.where(j < r, losses[:, :, :width], 0.0)
    batch, state = np.nonzero(remaining < width)  # the loss j == r (when in the band) takes P(loss >= r)
    capped[batch, state, remaining[batch, state]] = at_cap[batch, state]
    stay = capped[:, :, 0].copy()
    moves = np.moveaxis(capped[:, :, 1:], 2, 0)
    if not two_lines:
        return Kernel(stay, np.ascontiguousarray(moves), None, stride)
    leader = np.where(on_leader[None], moves, 0.0)
    body = np.where(on_leader[None], 0.0, moves)
    return Kernel(stay, body, leader, stride)


def transposed(kernel: Kernel) -> Kernel:
    """The kernel with the batch axis last (stay [S, B], moves [J-1, S, B]), the layout `apply` reads."""
    leader = np.ascontiguousarray(kernel.leader.transpose(0, 2, 1)) if kernel.leader is not None else None
    return Kernel(
        np.ascontiguousarray(kernel.stay.T), np.ascontiguousarray(kernel.body.transpose(0, 2, 1)), leader, kernel.stride
    )


def apply(
    kernel: Kernel, x: FloatArray, out: FloatArray | None = None, product: FloatArray | None = None
) -> FloatArray:
    """One wound on states x [S, Q, B] (Q: pending combinations) with a `transposed` kernel, into `out` (a new
    array if None; `product` is scratch of x's shape). The batch axis is innermost, so every shifted product
    runs over long contiguous rows (the same arithmetic per element)."""
    size = x.shape[0]
    out = np.multiply(x, kernel.stay[:size, None, :], out=out)
    product = np.empty_like(out) if product is None else product  # one buffer for every shifted product
    for j in range(1, kernel.body.shape[0] + 1):
        shift = j * kernel.stride
        if shift < size:
            _shifted_add(out, x, kernel.body[j - 1], shift, product)
        if kernel.leader is not None and j < size:
            _shifted_add(out, x, kernel.leader[j - 1], j, product)
    return out


def _shifted_add(out: FloatArray, x: FloatArray, moves: FloatArray, shift: int, buffer: FloatArray) -> None:
    """out[shift:] += x[:-shift] * moves[:-shift, None, :]."""
    size = x.shape[0]
    part = buffer[: size - shift]
    np.multiply(x[: size - shift], moves[: size - shift, None, :], out=part)
    out[shift:] += part


@dataclass(frozen=True, slots=True)
class Step:
    """One weapon step of a batch: counts [B, N, C] (normal x devastating), and its kernels."""

    counts: FloatArray
    normal: Kernel
    devastating: Kernel | None
    batch_last: bool = False  # `normal` is already `transposed` (built so by `loops`)


def run_step(step: Step, states: FloatArray) -> FloatArray:
    """states [B, Q, S] -> [B, C*Q, S]: sum_n P(n, c) K^n v for every devastating count c (computed with the
    batch axis last, see `apply`)."""
    batch, pending, size = states.shape
    counts = step.counts
    alive = np.flatnonzero(states.any(axis=(0, 2)))
    if len(alive) < pending:  # pending combinations without mass in the whole chunk (padding) stay zero
        out = np.zeros((batch, counts.shape[2], pending, size))
        if len(alive):
            out[:, :, alive] = run_step(step, states[:, alive]).reshape(batch, counts.shape[2], len(alive), size)
        return out.reshape(batch, -1, size)
    kernel = step.normal if step.batch_last else transposed(step.normal)
    coefficients = np.ascontiguousarray(counts.transpose(1, 2, 0))  # [N, C, B]
    acc = np.zeros((size, counts.shape[2], pending, batch))
    x = np.array(states.transpose(2, 1, 0), order="C")  # [S, Q, B]; a copy: the wounds reuse it as a buffer
    if loops.ENABLED:
        _compiled_wounds(kernel, counts, coefficients, acc, x)
    else:
        _wounds(kernel, counts, coefficients, acc, x)
    return acc.transpose(3, 1, 2, 0).reshape(batch, -1, size)


def _wounds(kernel: Kernel, counts: FloatArray, coefficients: FloatArray, acc: FloatArray, x: FloatArray) -> None:
    """Every wound of a chunk into acc, with NumPy (the reference for `loops`)."""
    size = x.shape[0]
    live = (kernel.stay < 1.0)[:, None, :]
    spare, product = np.zeros_like(x), np.empty_like(x)  # buffers reused by every wound (no temporaries)
    weighted = product[:, None] if counts.shape[2] == 1 else np.empty_like(acc)
    reach = _support(x)  # x[reach:] == 0 (mass only moves up, by at most the kernel's largest shift a wound)
    done = np.zeros(x.shape[1:], dtype=bool)
    for n in range(counts.shape[1]):
        if n:
            reach = min(size, reach + kernel.body.shape[0] * kernel.stride)
            apply(kernel, x[:reach], spare[:reach], product[:reach])
            x, spare = spare, x
        acc[:reach] += np.multiply(coefficients[n][None, :, None, :], x[:reach, None], out=weighted[:reach])
        if n % CHECK_EVERY == 0 and n + 1 < counts.shape[1]:
            newly = (np.sum(np.multiply(x[:reach], live[:reach], out=product[:reach]), axis=0) < ABSORBED) & ~done
            if newly.any():
                x = _lump_absorbed(acc, counts[:, n + 1 :].sum(axis=1).T, x, newly)
                done |= newly
                if done.all():
                    break


def _compiled_wounds(
    kernel: Kernel, counts: FloatArray, coefficients: FloatArray, acc: FloatArray, x: FloatArray
) -> None:
    """`_wounds` with the loop compiled (`loops`): the same operations in the same order."""
    loop = loops.compiled("_wounds")
    live = kernel.stay < 1.0
    leader = kernel.leader if kernel.leader is not None else np.zeros((0, 0, 0))
    spare = np.zeros_like(x)
    done = np.zeros(x.shape[1:], dtype=bool)
    newly = np.zeros_like(done)
    n, reach = 0, _support(x)
    while True:
        n, reach, swapped, stopped = loop(
            x,
            spare,
            acc,
            coefficients,
            kernel.stay,
            kernel.body,
            leader,
            int(kernel.stride),
            live,
            done,
            newly,
            n,
            reach,
        )
        if swapped:
            x, spare = spare, x
        if not stopped:
            return
        x = _lump_absorbed(acc, counts[:, n + 1 :].sum(axis=1).T, x, newly)
        done |= newly
        if done.all():
            return
        n += 1


def _support(x: FloatArray) -> int:
    """1 + the highest state with any mass in x [S, Q, B] (at least 1)."""
    rows = np.flatnonzero(x.reshape(x.shape[0], -1).any(axis=1))
    return int(rows[-1]) + 1 if len(rows) else 1


def _lump_absorbed(acc: FloatArray, tail: FloatArray, x: FloatArray, newly: BoolArray) -> FloatArray:
    """Vectors with no mass left to move take the rest of their wound counts at once and stop (x = 0): each
    vector decides for itself, so its result never depends on the other vectors of its chunk."""
    absorbed = np.where(newly[None], x, 0.0)
    acc += tail[None, :, None, :] * absorbed[:, None]
    result: FloatArray = x - absorbed
    return result


def resolve_devastating(kernels: list[Kernel], sizes: list[int], states: FloatArray) -> FloatArray:
    """Pending axes (first step innermost) -> states after each step's mortal wounds, in step order."""
    batch, _, size = states.shape
    x = np.ascontiguousarray(states.transpose(2, 1, 0))  # [S, pending, B]
    for kernel, count in zip(kernels, sizes, strict=True):
        flipped = transposed(kernel)
        pending = x.reshape(size, -1, count, batch)
        result = pending[:, :, count - 1]
        for c in range(count - 2, -1, -1):
            result = apply(flipped, result) + pending[:, :, c]
        x = result
    return np.ascontiguousarray(x.transpose(2, 1, 0))


def propagate(steps: list[Step], start: FloatArray) -> FloatArray:
    """Final state distributions [B, S] of a batch from start [B, S]."""
    states = start[:, None, :]
    deferred: list[Kernel] = []
    sizes: list[int] = []
    for step in steps:
        states = run_step(step, states)
        if step.counts.shape[2] > 1:
            assert step.devastating is not None
            deferred.append(step.devastating)
            sizes.append(step.counts.shape[2])
    states = resolve_devastating(deferred, sizes, states)
    return states[:, 0, :]
