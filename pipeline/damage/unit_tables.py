"""Expected models slain and wounds lost after n normal wounds, then c devastating wounds, on one unit.

A target unit of N identical models of W wounds is a line of N·W + 1 states
(wounds lost, a dead model counting all of its W): a wounded model takes the next
wound, damage beyond its remaining wounds is lost (`pipeline.units.layout`, one
line). A normal wound faces the save, then loses the Damage after modifiers
(halve, Melta, reduction) with Feel No Pain rolled per point; a devastating wound
skips the save. Devastating wounds are resolved after every normal wound, so the
state after (n, c) wounds is D^c K^n e0 and the tables hold, per loss key,
E[models slain] and E[wounds lost] of that state for every n < rows, c < cols.
A wound-count pmf dotted with these tables gives the per-weapon outputs
(`unit_results.py`). Many pairs share a loss key, so each chain runs once.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from pipeline.damage.dice_tables import binomial_matrix, fnp_lose_probability, raw_damage_pmfs, reduction_matrix
from pipeline.damage.ragged import FloatArray, IntArray, Ragged, concat, from_padded

#: Columns of a loss key (one row per distinct key), plus `rows` and `cols`: the extents to tabulate.
LOSS_COLUMNS: tuple[str, ...] = ("lost_class", "need", "wounds", "models")

#: Cells (keys x stack x states x loss values) of one batch: the memory bound of a chain pass.
BATCH_CELLS = 1 << 22

_STATE_BUCKETS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256)

_DICE = ["dmg_n", "dmg_sides", "dmg_plus", "mel_n", "mel_sides", "mel_plus"]


def lost_pmfs(frame: pl.DataFrame) -> FloatArray:
    """P(wounds lost = k) from one damaging wound per key: halve -> + Melta -> - reduction (min 1), then FNP."""
    keys = frame.select(*_DICE, "halve", "reduction", "fnp")
    distinct = keys.unique(maintain_order=True).with_row_index("lost_id")
    dice = [tuple(r) for r in distinct.select(_DICE).iter_rows()]
    raw = {halve: raw_damage_pmfs(dice, halve) for halve in (False, True)}
    width = raw[False].shape[1]
    table = np.zeros((distinct.height, width))
    for halve, reduction, fnp in distinct.select("halve", "reduction", "fnp").unique().iter_rows():
        part = distinct.filter(pl.col("halve") == halve, pl.col("reduction") == reduction, pl.col("fnp") == fnp)
        rows = part["lost_id"].to_numpy()
        pmf = raw[bool(halve)][rows] @ reduction_matrix(width, int(reduction))
        table[rows] = pmf @ binomial_matrix(width, fnp_lose_probability(int(fnp)))
    index = keys.join(distinct, on=keys.columns, how="left", maintain_order="left")["lost_id"].to_numpy()
    result: FloatArray = table[index]
    return result


def _bucket(value: int, buckets: tuple[int, ...]) -> int:
    return next((b for b in buckets if b >= value), value)


def loss_tables(frame: pl.DataFrame, lost_table: FloatArray) -> tuple[Ragged, Ragged]:
    """(E[models slain], E[wounds lost]) tables [rows, cols] per loss key (rows of `frame`, LOSS_COLUMNS);
    `lost_table[lost_class]` is the pmf of wounds lost per damaging wound."""
    lost = lost_table[frame["lost_class"].to_numpy()]
    fails = (frame["need"].to_numpy() - 1) / 6.0
    normal = fails[:, None] * lost
    normal[:, 0] += 1.0 - fails
    wounds, models = frame["wounds"].to_numpy(), frame["models"].to_numpy()
    rows, cols = frame["rows"].to_numpy(), frame["cols"].to_numpy()
    states = np.array([_bucket(int(s), _STATE_BUCKETS) for s in (wounds * models + 1).tolist()], dtype=np.int64)
    devastating = (cols > 1).astype(np.int64)  # only keys paired with Devastating Wounds need cols > 1
    longest = np.maximum(1, np.count_nonzero(np.cumsum(lost[:, ::-1], axis=1)[:, ::-1] > 0, axis=1))
    slain_parts, lost_parts = [], []
    for s, d in np.unique(np.stack([states, devastating], axis=1), axis=0).tolist() if frame.height else []:
        members = np.flatnonzero((states == s) & (devastating == d))
        members = members[np.argsort(rows[members], kind="stable")]  # batches of similar heights
        size = max(1, BATCH_CELLS // (s * (int(rows[members].max()) + int(cols[members].max()) + lost.shape[1])))
        for start in range(0, len(members), size):
            ids = members[start : start + size]
            j = int(longest[ids].max())
            chain = UnitChain(normal[ids, :j], lost[ids, :j], wounds[ids], models[ids], s)
            slain, lost_wounds = chain.tables(int(rows[ids].max()), int(cols[ids].max()))
            slain_parts.append((ids, from_padded(slain, rows[ids], cols[ids])))
            lost_parts.append((ids, from_padded(lost_wounds, rows[ids], cols[ids])))
    return concat(slain_parts, frame.height), concat(lost_parts, frame.height)


class UnitChain:
    """The state chain of a batch of loss keys padded to `states` states: one wound at a time."""

    def __init__(self, normal: FloatArray, devastating: FloatArray, wounds: IntArray, models: IntArray, states: int):
        full = wounds * models
        s = np.arange(states)[None, :]
        alive = s < full[:, None]
        self.remaining = np.where(alive, wounds[:, None] - s % wounds[:, None], 0)
        self.normal = self._capped(normal)
        self.devastating = self._capped(devastating)
        self.slain = np.where(s <= full[:, None], s // wounds[:, None], models[:, None]).astype(np.float64)
        self.lost = np.minimum(s, full[:, None]).astype(np.float64)

    def _capped(self, losses: FloatArray) -> FloatArray:
        """Per state the pmf of the move [B, S, J]: a loss of j moves j, capped at the remaining wounds."""
        width = min(losses.shape[1], int(self.remaining.max(initial=0)) + 1)
        padded = np.zeros((losses.shape[0], max(losses.shape[1], width) + 1))
        padded[:, : losses.shape[1]] = losses
        tails = np.cumsum(padded[:, ::-1], axis=1)[:, ::-1]  # tails[b, j] = P(loss >= j)
        j = np.arange(width)[None, None, :]
        r = self.remaining[:, :, None]
        at_cap = np.take_along_axis(tails, np.minimum(self.remaining, padded.shape[1] - 1), axis=1)
        capped: FloatArray = np.where(j < r, padded[:, None, :width], 0.0) + np.where(j == r, at_cap[:, :, None], 0.0)
        return capped

    @staticmethod
    def forward(kernel: FloatArray, x: FloatArray) -> FloatArray:
        """One wound on state distributions x [B, S]: mass at s moves to s + j with kernel[b, s, j]."""
        out = x * kernel[:, :, 0]
        for j in range(1, kernel.shape[2]):
            out[:, j:] += x[:, :-j] * kernel[:, :-j, j]
        return out

    @staticmethod
    def backward(kernel: FloatArray, g: FloatArray) -> FloatArray:
        """The transposed step on functions of the state g [B, S]: (K^T g)(s) = sum_j kernel[b, s, j] g(s + j)."""
        out = g * kernel[:, :, 0]
        for j in range(1, kernel.shape[2]):
            out[:, :-j] += kernel[:, :-j, j] * g[:, j:]
        return out

    def tables(self, rows: int, cols: int) -> tuple[FloatArray, FloatArray]:
        """E[slain] and E[wounds lost] after n normal then c devastating wounds: [B, rows, cols].

        <D^c K^n e0, f> = <K^n e0, (D^T)^c f>: the states after n normal wounds (forward) against the
        outputs after c devastating wounds (backward), one batched matrix product.
        """
        batch, size = self.slain.shape
        states = np.zeros((batch, rows, size))
        x = np.zeros((batch, size))
        x[:, 0] = 1.0
        for n in range(rows):
            states[:, n] = x
            if n + 1 < rows:
                x = self.forward(self.normal, x)
        out = []
        for g in (self.slain, self.lost):
            after = np.zeros((batch, size, cols))
            for c in range(cols):
                after[:, :, c] = g
                if c + 1 < cols:
                    g = self.backward(self.devastating, g)
            out.append(np.matmul(states, after))
        return out[0], out[1]
