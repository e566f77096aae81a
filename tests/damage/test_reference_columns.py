"""Each effective row's results against the reference profiles, kept between runs: a run that takes the matrix
files from the cache reads them back instead of computing them, with the bits a computation of every row gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pipeline.cache.entries import CacheWarning
from pipeline.cache.parts import PartCache
from pipeline.damage import matrix as matrix_module
from pipeline.damage import matrix_files, prepare_damage
from pipeline.damage.effective import effective_weapons
from pipeline.damage.profiles import prepare_targets, prepare_weapons
from pipeline.damage.reference_columns import REFERENCE_KIND, effective_row_digests, reference_key
from pipeline.damage.scenarios import SCENARIOS, resolve_scenarios
from tests.damage.test_matrix import frames
from tests.damage.test_matrix_key import REFERENCES, Frames, _dearer_plasma, _plasma_apart, _tougher_trukk, _when


def _computed_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each `build_blocks` call of `prepare_damage` computes at the reference columns only."""
    counted: list[int] = []
    real = getattr(matrix_module, "build_blocks")  # noqa: B009 (monkeypatched where matrix.py looks it up)

    def counting(*args: Any, **kwargs: Any) -> Any:
        rows, columns = kwargs.get("rows"), kwargs.get("columns")
        if columns is not None:
            counted.append(int(rows.sum()) if rows is not None else -1)
        return real(*args, **kwargs)

    monkeypatch.setattr(matrix_module, "build_blocks", counting)
    return counted


def _run(inputs: Frames, cache: Path, out: Path | None = None) -> Any:
    computation = prepare_damage(
        *inputs,
        cache=PartCache(cache, "damage_matrix"),
        references=REFERENCES,
        reference_cache=PartCache(cache, REFERENCE_KIND),
    )
    if out is not None:
        computation.write_parquet(out, cache=PartCache(cache, "damage_matrix"))
    return computation


def test_a_run_reads_the_reference_columns_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold run keeps every row's 2 reference columns; after the plasma gun's points change, the 6 rows
    its file reads are computed whole and the other 6 rows' reference columns come from the cache (no row is
    computed at those columns alone), equal to a computation of every row, and the entry is not written again."""
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 3)
    cache = tmp_path / "cache"
    _run(_plasma_apart(frames()), cache, tmp_path / "first")
    entries = sorted((cache / "parts" / REFERENCE_KIND).glob("*.bin"))
    assert len(entries) == 1
    written = entries[0].stat().st_mtime_ns
    counted = _computed_rows(monkeypatch)
    inputs = _dearer_plasma(_plasma_apart(frames()))
    part = _run(inputs, cache)
    assert counted == [0]
    whole = prepare_damage(*inputs)
    assert part.fill is not None and int(part.fill.whole.sum()) == 6
    reference = part.reference
    assert reference is not None and len(reference.columns) == 2
    for name, block in whole.blocks.items():
        assert np.array_equal(reference.values[name], block[:, reference.columns], equal_nan=True)
    for scenario in SCENARIOS:
        assert part.matrix(scenario, REFERENCES).equals(whole.matrix(scenario, REFERENCES))
    assert entries[0].stat().st_mtime_ns == written


def test_a_changed_entry_is_computed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrix_files, "FILE_START_EVERY", 3)
    cache = tmp_path / "cache"
    _run(_plasma_apart(frames()), cache, tmp_path / "first")
    (entry,) = (cache / "parts" / REFERENCE_KIND).glob("*.bin")
    data = entry.read_bytes()
    entry.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    counted = _computed_rows(monkeypatch)
    inputs = _dearer_plasma(_plasma_apart(frames()))
    with pytest.warns(CacheWarning, match="missing or changed"):
        part = _run(inputs, cache)
    assert counted == [6]  # every row but those computed whole
    whole = prepare_damage(*inputs)
    assert part.reference is not None
    for name, block in whole.blocks.items():
        assert np.array_equal(part.reference.values[name], block[:, part.reference.columns], equal_nan=True)


def _key_and_rows(inputs: Frames) -> tuple[str, list[bytes]]:
    weapons, abilities, targets, _ = inputs
    w = prepare_weapons(weapons, abilities)
    t = prepare_targets(targets, w.abilities.anti_keywords)
    effective = effective_weapons(w.profiles, resolve_scenarios(SCENARIOS), w.abilities.anti_keywords)
    referenced = t.ids.filter(t.ids["profile_id"].is_in(REFERENCES))["tkey"].to_numpy()
    return reference_key(t, np.unique(referenced).astype(np.int64)), effective_row_digests(effective)


def test_the_entry_key_moves_with_the_reference_targets_only() -> None:
    """A tougher trukk (no reference) leaves the key; a tougher reference knight moves it; neither moves a row."""
    key, rows = _key_and_rows(frames())
    trukk_key, trukk_rows = _key_and_rows(_tougher_trukk(frames()))
    f = frames()
    knight_key, knight_rows = _key_and_rows((*f[:2], _when(f[2], "profile_id", "ref:knight", "toughness", 13), f[3]))
    assert (trukk_key, trukk_rows) == (key, rows)
    assert knight_key != key and knight_rows == rows


def test_a_row_digest_is_its_profile_not_its_place() -> None:
    """Without the mortar, the other rows keep their digests although their keys move."""
    _, rows = _key_and_rows(frames())
    f = frames()
    _, fewer = _key_and_rows((f[0].filter(f[0]["weapon_id"] != "mortar"), *f[1:]))
    assert len(fewer) < len(rows) and set(fewer) < set(rows)
