"""How many wounds one model scores with a weapon: the exact joint pmf of (normal wounds, devastating wounds).

The per-weapon engine needs only means; models slain needs the whole count
distribution. One attack gives a small pmf over (normal, devastating) wounds:
the hit roll (Critical Hits, Sustained Hits X with dice X, Lethal Hits
auto-wounds that are not Critical Wounds) and the wound roll of each hit (the
need averaged over a rolled Strength, Lance, Anti, Twin-linked), as in
`engine.py`. A model's attacks are a random number A (Attacks dice, Blast,
Rapid Fire dice), so its pmf is sum_a P(A = a) * attack^(*a), evaluated by
Horner's rule with exact convolutions, for whole groups of keys at once (the
same rules as `pipeline.units.counts`, vectorised over keys). Tails below `TAIL`
are dropped, as in the unit engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.damage.dice_tables import dice_pmf
from pipeline.damage.profiles import distinct_rows
from pipeline.damage.ragged import FloatArray, IntArray, Ragged, concat, from_padded

TAIL = 1e-16
"""Probability mass dropped from the end of a count distribution (per axis), as `pipeline.units.counts`."""

#: Cells (keys x rows x cols) of one group's padded pmfs: the memory bound of a Horner pass.
GROUP_CELLS = 1 << 22

_ATTACK_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)

#: Columns of a count key (one row per distinct key): see `count_pmfs`.
COUNT_COLUMNS: tuple[str, ...] = (
    "att_n", "att_sides", "att_plus", "rf_n", "rf_sides", "rf_plus", "sus_n", "sus_sides", "sus_plus",
    "p_hit", "p_crit", "lethal", "need_2", "need_3", "need_4", "need_5", "need_6", "wound_bonus", "crit",
    "twin", "dev",
)  # fmt: skip


def _pmf_rows(frame: pl.DataFrame, prefix: str) -> tuple[FloatArray, IntArray]:
    """P(dice = k) per row for `<prefix>_n/_sides/_plus`, padded; and each row's maximum."""
    dice = frame.select(f"{prefix}_n", f"{prefix}_sides", f"{prefix}_plus").to_numpy()
    maxima = dice[:, 0] * dice[:, 1] + dice[:, 2]
    table = np.zeros((len(dice), int(maxima.max(initial=0)) + 1))
    cache: dict[tuple[int, int, int], FloatArray] = {}
    for row, key in enumerate(map(tuple, dice.tolist())):
        pmf = cache[key] if key in cache else cache.setdefault(key, dice_pmf(*key))
        table[row, : len(pmf)] = pmf
    return table, maxima


def attack_pmfs(frame: pl.DataFrame) -> tuple[FloatArray, IntArray]:
    """P(A = a) per row: Attacks dice (+ Blast's bonus, folded into att_plus) convolved with Rapid Fire dice."""
    attacks, att_max = _pmf_rows(frame, "att")
    rapid, rf_max = _pmf_rows(frame, "rf")
    total = np.zeros((frame.height, attacks.shape[1] + rapid.shape[1] - 1))
    for r in range(rapid.shape[1]):
        if rapid[:, r].any():
            total[:, r : r + attacks.shape[1]] += rapid[:, r, None] * attacks
    return total, att_max + rf_max


def _times_roll(poly: FloatArray, a: FloatArray, b: FloatArray, d: FloatArray) -> FloatArray:
    """poly [K, R, C] convolved with a + b·z + d·y per key (z: one more normal wound, y: one devastating)."""
    k, rows, cols = poly.shape
    out = np.zeros((k, rows + 1, cols + 1))
    out[:, :rows, :cols] += a[:, None, None] * poly
    out[:, 1:, :cols] += b[:, None, None] * poly
    out[:, :rows, 1:] += d[:, None, None] * poly
    return out


def _pad(poly: FloatArray, size: int) -> FloatArray:
    out = np.zeros((poly.shape[0], size, size))
    out[:, : poly.shape[1], : poly.shape[2]] = poly
    return out


def roll_coefficients(frame: pl.DataFrame, need: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One wound roll at table value `need`: (P(fail), P(normal wound), P(devastating wound)) per key."""
    bonus, crit = frame["wound_bonus"].to_numpy(), frame["crit"].to_numpy()
    effective = np.minimum(np.clip(need - bonus, 2, 6), crit)
    success, critical = (7 - effective) / 6.0, (7 - crit) / 6.0
    twin = frame["twin"].to_numpy()
    critical = np.where(twin, critical * (2.0 - success), critical)
    success = np.where(twin, success * (2.0 - success), success)
    devastating = np.where(frame["dev"].to_numpy(), critical, 0.0)
    return 1.0 - success, success - devastating, devastating


def attack_kernels(frame: pl.DataFrame) -> FloatArray:
    """Pmf [K, X + 2, X + 2] of (normal, devastating) wounds from ONE attack (X: largest Sustained Hits)."""
    sustained, _ = _pmf_rows(frame, "sus")
    size = sustained.shape[1] + 1
    p_hit, p_crit = frame["p_hit"].to_numpy(), frame["p_crit"].to_numpy()
    lethal = frame["lethal"].to_numpy()
    kernel = np.zeros((frame.height, size, size))
    kernel[:, 0, 0] = 1.0 - p_hit
    for need in (2, 3, 4, 5, 6):
        weight = frame[f"need_{need}"].to_numpy()
        if not weight.any():
            continue
        a, b, d = roll_coefficients(frame, need)
        power = np.ones((frame.height, 1, 1))
        extra = sustained[:, 0, None, None] * power  # G_X(roll): the Sustained hits roll to wound too
        for x in range(1, sustained.shape[1]):
            power = _times_roll(power, a, b, d)
            extra = _pad(extra, x + 1) + sustained[:, x, None, None] * power
        # the Critical Hit itself: a wound roll, or with Lethal Hits an automatic (normal) wound
        critical = _times_roll(extra, np.where(lethal, 0.0, a), np.where(lethal, 1.0, b), np.where(lethal, 0.0, d))
        plain = _pad(_times_roll(np.ones((frame.height, 1, 1)), a, b, d), size)
        kernel += weight[:, None, None] * ((p_hit - p_crit)[:, None, None] * plain + p_crit[:, None, None] * critical)
    return kernel


def _horner(attacks: FloatArray, kernel: FloatArray, rows: int, cols: int) -> FloatArray:
    """sum_a P(A = a) kernel^(*a) for a group: [K, rows, cols] (large enough for every a)."""
    k = kernel.shape[0]
    total = np.zeros((k, rows, cols))
    entries = [(i, j) for i in range(kernel.shape[1]) for j in range(kernel.shape[2]) if kernel[:, i, j].any()]
    for a in range(attacks.shape[1] - 1, -1, -1):
        if a < attacks.shape[1] - 1:
            previous, total = total, np.zeros((k, rows, cols))
            for i, j in entries:
                total[:, i:, j:] += kernel[:, i, j, None, None] * previous[:, : rows - i, : cols - j]
        total[:, 0, 0] += attacks[:, a]
    return total


def _extents(pmfs: FloatArray) -> tuple[IntArray, IntArray]:
    """Rows and cols kept per key: up to the last index whose tail mass is at least TAIL (at least 1)."""
    kept = []
    for axis in (2, 1):
        marginal = pmfs.sum(axis=axis)
        tails = np.cumsum(marginal[:, ::-1], axis=1)[:, ::-1]
        kept.append(np.maximum(1, np.count_nonzero(tails >= TAIL, axis=1)).astype(np.int64))
    return kept[0], kept[1]


#: Count-key columns one attack's pmf reads (keys differing only in their attacks share it).
KERNEL_COLUMNS: tuple[str, ...] = tuple(c for c in COUNT_COLUMNS if not c.startswith(("att_", "rf_")))


def count_pmfs(frame: pl.DataFrame) -> Ragged:
    """The (normal, devastating) wound pmf of every count key (rows of `frame`, COUNT_COLUMNS)."""
    attack_rows, attack_of = distinct_rows(frame, [c for c in COUNT_COLUMNS if c.startswith(("att_", "rf_"))])
    attack_table, attack_max = attack_pmfs(attack_rows)
    attacks, maxima = _Rows(attack_table, attack_of), attack_max[attack_of]
    kernel_rows, kernel_of = distinct_rows(frame, list(KERNEL_COLUMNS))
    kernels = _Rows(attack_kernels(kernel_rows), kernel_of)
    sustained = (frame["sus_n"] * frame["sus_sides"] + frame["sus_plus"]).to_numpy()
    dev = frame["dev"].to_numpy()
    bucket = np.searchsorted(np.array(_ATTACK_BUCKETS), maxima)
    groups = np.unique(np.stack([bucket, sustained, dev]), axis=1).T if frame.height else np.zeros((0, 3), np.int64)
    parts: list[tuple[IntArray, Ragged]] = []
    for b, x, d in groups.tolist():
        members = np.flatnonzero((bucket == b) & (sustained == x) & (dev == bool(d)))
        parts.extend(_group(attacks, kernels, members, _bucket_max(b, maxima[members]), x, bool(d)))
    return concat(parts, frame.height)


def _bucket_max(bucket: int, maxima: IntArray) -> int:
    return _ATTACK_BUCKETS[bucket] if bucket < len(_ATTACK_BUCKETS) else int(maxima.max())


@dataclass(frozen=True)
class _Rows:
    """Rows of a table of distinct values, per key: `table[of[key]]`."""

    table: FloatArray
    of: IntArray

    def __getitem__(self, keys: IntArray) -> FloatArray:
        rows: FloatArray = self.table[self.of[keys]]
        return rows


def _group(
    attacks: _Rows, kernels: _Rows, members: IntArray, a_max: int, x_max: int, dev: bool
) -> list[tuple[IntArray, Ragged]]:
    """Pmfs of keys sharing an attack bucket, a Sustained maximum and Devastating Wounds (chunked by memory)."""
    rows = a_max * (x_max + 1) + 1
    cols = rows if dev else 1
    kernel_size = x_max + 2
    chunk = max(1, GROUP_CELLS // (rows * cols))
    parts = []
    for start in range(0, len(members), chunk):
        ids = members[start : start + chunk]
        kernel = kernels[ids][:, :kernel_size, : (kernel_size if dev else 1)]
        padded = _horner(attacks[ids][:, : a_max + 1], kernel, rows, cols)
        np.clip(padded, 0.0, None, out=padded)
        kept_rows, kept_cols = _extents(padded)
        parts.append((ids, from_padded(padded, kept_rows, kept_cols)))
    return parts
