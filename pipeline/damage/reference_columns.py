"""Each distinct effective weapon's results against the reference profiles, kept between runs: with a cache,
the engine computes every row at the reference profiles' columns (`damage_vs_reference` reads them), and a
row whose inputs a run has seen is read back instead (docs/damage.md#reference-columns).

A row's results depend only on its own profile and on the targets it meets (`expand.build_blocks`): the entry
is keyed by the code and the reference targets as the engine reads them, and holds one digest per row (its
group and profile columns, never its position) with that row's values at every reference column.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.cache.entries import warn_unfit
from pipeline.cache.fingerprint import code_fingerprint, key_of, row_digests, rows_digest
from pipeline.cache.parts import PartCache
from pipeline.damage.effective import EffectiveWeapons
from pipeline.damage.engine import OUTPUTS
from pipeline.damage.expand import BoolArray, FloatArray, IntArray, base_keys, target_frame
from pipeline.damage.profiles import TargetProfiles

REFERENCE_KIND = "reference_columns"
#: Bytes of one row's digest in the entry's file.
DIGEST_BYTES = 32


@dataclass(frozen=True)
class ReferenceColumns:
    """The entry of one run's reference targets, and the digest of each effective row (effective key order)."""

    cache: PartCache
    key: str
    rows: list[bytes]

    @classmethod
    def of(
        cls, cache: PartCache, effective: EffectiveWeapons, targets: TargetProfiles, columns: IntArray
    ) -> ReferenceColumns:
        return cls(cache, reference_key(targets, columns), effective_row_digests(effective))

    def fill(self, values: dict[str, FloatArray], wanted: BoolArray) -> BoolArray:
        """The `wanted` rows the entry holds, written into `values` (output -> [row, reference column]); the mask
        of the rows filled."""
        kept = self._read(next(iter(values.values())).shape[1]) if values else None
        filled = np.zeros(len(self.rows), dtype=bool)
        if kept is None:
            return filled
        at = {digest: i for i, digest in enumerate(kept[0])}
        found = np.array([at.get(digest, -1) for digest in self.rows], dtype=np.int64)
        filled = wanted & (found >= 0)
        rows = np.flatnonzero(filled)
        for name in OUTPUTS:
            values[name][rows] = kept[1][name][found[rows]]
        return filled

    def holds_all(self) -> bool:
        """Whether the entry holds every row of this run (nothing to keep)."""
        kept = self.cache.meta(self.key)
        return kept is not None and kept.get("digests") == rows_list_digest(self.rows)

    def keep(self, values: dict[str, FloatArray]) -> None:
        """Every row's values (output -> [row, reference column]) as the entry, replacing the one kept."""
        width = next(iter(values.values())).shape[1] if values else 0
        meta = {"rows": len(self.rows), "columns": width, "digests": rows_list_digest(self.rows)}
        self.cache.keep_written(self.key, lambda path: _write(path, self.rows, values), meta)

    def _read(self, width: int) -> tuple[list[bytes], dict[str, FloatArray]] | None:
        """The kept digests and values, or None: no entry, a changed file (`PartCache.get` warns) or arrays that
        do not fit their meta (warned here)."""
        found = self.cache.get(self.key)
        if found is None:
            return None
        blob, placed = found
        try:
            count = int(placed.meta["rows"])
            if int(placed.meta["columns"]) != width:
                raise ValueError(f"{placed.meta['columns']} columns kept, {width} wanted")
            data = blob.read_bytes()
            cells = count * width
            if len(data) != count * DIGEST_BYTES + 8 * cells * len(OUTPUTS):
                raise ValueError(f"{len(data)} bytes for {count} rows of {width} columns")
            digests = [data[i : i + DIGEST_BYTES] for i in range(0, count * DIGEST_BYTES, DIGEST_BYTES)]
            start = count * DIGEST_BYTES
            values = {
                name: np.frombuffer(data, np.float64, cells, start + 8 * cells * i).reshape(count, width)
                for i, name in enumerate(OUTPUTS)
            }
        except (OSError, KeyError, ValueError, TypeError) as exc:
            warn_unfit(REFERENCE_KIND, self.key, exc)
            return None
        return digests, values


def _write(path: Path, rows: list[bytes], values: dict[str, FloatArray]) -> None:
    """The digests back to back, then each output's values (float64, row-major)."""
    with path.open("wb") as out:
        out.write(b"".join(rows))
        for name in OUTPUTS:
            out.write(np.ascontiguousarray(values[name], dtype=np.float64).data)


def reference_key(targets: TargetProfiles, columns: IntArray) -> str:
    """The code and, for each kind of group, the target row the engine crosses at each reference column (their
    values, not their keys: keys are positions among every target of the run)."""
    base_of_key = base_keys(targets)
    read = []
    for special in (False, True):
        frame, order = target_frame(special, targets, base_of_key, columns)
        read.append(rows_digest(_without_keys(frame)[order]))
    return key_of(code_fingerprint(), REFERENCE_KIND, *read)


def effective_row_digests(effective: EffectiveWeapons) -> list[bytes]:
    """sha256 of each effective row's group name and profile columns (its schema and values), key order."""
    digests = []
    for group in effective.groups:
        name = group.name.encode() + b"\0"
        rows = row_digests(_without_keys(group.profiles))
        digests += [hashlib.sha256(name + row.encode()).digest() for row in rows]
    return digests


def rows_list_digest(rows: list[bytes]) -> str:
    return hashlib.sha256(b"".join(rows)).hexdigest()


def _without_keys(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame without its positional key columns (`ekey`, `tkey`, `tkey_base`, ...)."""
    return frame.drop([c for c in frame.columns if c in {"ekey", "tkey", "tkey_base", "tkey_unit"}])
