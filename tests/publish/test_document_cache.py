"""Faction documents built from unchanged rows are placed from the cache; a document whose rows changed, or
every document when a table they all read changed, is built again: the files are those of a run without a
cache, byte for byte."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from pipeline import run
from pipeline.cache.entries import CacheWarning
from pipeline.cache.fingerprint import rows_digest, rows_multiset_digest
from pipeline.publish.document_cache import DOCUMENTS_KIND, DocumentCache, documents_beside
from pipeline.publish.factions import write_faction_documents
from tests.seed_frames import Frames, SeedStages, seed_stages

ORKS = "unit:orks:wazdakka-gutsmek"


@pytest.fixture(scope="module")
def built() -> SeedStages:
    return seed_stages()


def _orks_cost(frames: Frames) -> Frames:
    """Wazdakka Gutsmek's points 175 -> 176 (read from the seed page): only the Orks document reads it."""
    points = frames["unit_points"]
    assert points.filter(pl.col("unit_id") == ORKS)["cost"].to_list() == [175]
    cost = pl.when(pl.col("unit_id") == ORKS).then(pl.col("cost") + 1).otherwise(pl.col("cost"))
    return {**frames, "unit_points": points.with_columns(cost.alias("cost"))}


def _rule_body(frames: Frames) -> Frames:
    """Every rule's text changed: `rules` is read whole by every document (the weapon abilities' texts)."""
    return {**frames, "rules": frames["rules"].with_columns(pl.col("body") + " (errata)")}


def _same(frames: Frames) -> Frames:
    return frames


def _documents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "feed" / "factions").glob("*.json"))}


@pytest.mark.parametrize(
    ("edit", "written"),
    [
        (_same, set()),
        (_orks_cost, {"orks.json"}),
        (_rule_body, {"astra-militarum.json", "orks.json", "world-eaters.json"}),
    ],
)
def test_only_documents_whose_rows_changed_are_built_again(
    built: SeedStages, tmp_path: Path, edit: Callable[[Frames], Frames], written: set[str]
) -> None:
    first = DocumentCache.of(tmp_path / "cache")
    write_faction_documents(built.frames, tmp_path / "first", first)
    assert first.documents == (3, 0)

    again = DocumentCache.of(tmp_path / "cache")
    write_faction_documents(edit(built.frames), tmp_path / "again", again)
    assert again.written == written
    assert again.documents == (len(written), 3 - len(written))

    write_faction_documents(edit(built.frames), tmp_path / "cold")  # no cache
    assert _documents(tmp_path / "again") == _documents(tmp_path / "cold")
    assert (_documents(tmp_path / "again") == _documents(tmp_path / "first")) == (not written)


def test_a_cached_document_changed_in_place_is_not_trusted(built: SeedStages, tmp_path: Path) -> None:
    write_faction_documents(built.frames, tmp_path / "first", DocumentCache.of(tmp_path / "cache"))
    next((tmp_path / "cache" / "parts" / DOCUMENTS_KIND).rglob("*.bin")).write_text("{}\n")
    again = DocumentCache.of(tmp_path / "cache")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CacheWarning)
        write_faction_documents(built.frames, tmp_path / "again", again)
    assert [w.category for w in caught if w.category is CacheWarning] == [CacheWarning]
    assert again.documents == (1, 2)
    write_faction_documents(built.frames, tmp_path / "cold")
    assert _documents(tmp_path / "again") == _documents(tmp_path / "cold")


def test_rows_digest_reads_values_and_their_order_not_the_layout() -> None:
    frame = pl.DataFrame({"id": ["a", "b", "c"], "cost": [1.5, None, 3.0], "tags": [["x"], [], None]})
    rechunked = pl.concat([frame.head(1), frame.tail(2)], rechunk=False)
    assert rechunked.n_chunks() == 2
    assert rows_digest(rechunked) == rows_digest(frame)
    assert rows_digest(frame.with_columns(pl.col("cost").fill_null(0.0))) != rows_digest(frame)
    assert rows_digest(frame.reverse()) != rows_digest(frame)
    assert rows_digest(frame.rename({"cost": "price"})) != rows_digest(frame)


@pytest.mark.parametrize(
    ("one", "other"),
    [([0.0], [-0.0]), ([float("nan")], [-float("nan")]), ([[1.0, 0.0]], [[1.0, -0.0]]),
     ([{"x": 0.0, "y": "a"}], [{"x": -0.0, "y": "a"}]),
     (pl.Series([0.0], dtype=pl.Float32), pl.Series([-0.0], dtype=pl.Float32))],
    ids=["negative zero", "NaN sign", "negative zero in a list", "negative zero in a struct", "float32"],
)  # fmt: skip
def test_rows_digest_tells_values_apart_that_polars_hashes_alike(one: object, other: object) -> None:
    """`hash_rows` hashes -0.0 as 0.0 (and NaNs alike); a document built from either would show them apart."""
    first, second = pl.DataFrame({"id": ["a"], "v": one}), pl.DataFrame({"id": ["a"], "v": other})
    assert first.hash_rows(seed=0).to_list() == second.hash_rows(seed=0).to_list()
    assert rows_digest(first) != rows_digest(second)
    assert rows_digest(first) == rows_digest(first.clone())


def test_the_multiset_digest_reads_the_rows_not_their_order() -> None:
    frame = pl.DataFrame({"unit_id": ["a", "b", "c"], "cost": [1.0, None, -0.0]})
    assert rows_multiset_digest(frame.reverse()) == rows_multiset_digest(frame) != rows_digest(frame)
    assert rows_multiset_digest(frame.head(2)) != rows_multiset_digest(frame)
    doubled = pl.concat([frame, frame.head(1)])  # a duplicate row counts
    assert rows_multiset_digest(doubled) != rows_multiset_digest(pl.concat([frame, frame.tail(1)]))
    assert rows_multiset_digest(frame.with_columns(pl.col("cost").fill_null(0.0))) != rows_multiset_digest(frame)


def test_documents_written_beside_are_those_written_in_line(built: SeedStages, tmp_path: Path) -> None:
    """Written on their own thread (while the quality gates run), the documents are the same files, and the
    cache's counts come back with them."""
    write_faction_documents(built.frames, tmp_path / "inline")
    with documents_beside(built.frames, tmp_path / "beside", tmp_path / "cache") as started:
        documents = started.result()
    assert _documents(tmp_path / "beside") == _documents(tmp_path / "inline") != {}
    assert documents.documents == (3, 0) and documents.written == {
        "astra-militarum.json",
        "orks.json",
        "world-eaters.json",
    }


def test_a_failure_beside_the_documents_waits_for_them_before_it_goes_on(built: SeedStages, tmp_path: Path) -> None:
    """When the caller fails (a quality gate, say), leaving the block waits for the thread: nothing is still
    writing into the staging release its caller then removes."""
    with pytest.raises(RuntimeError, match="gate failed"), documents_beside(built.frames, tmp_path, None) as started:
        raise RuntimeError("gate failed")
    assert not started._thread.is_alive()
    assert len(_documents(tmp_path)) == 3


@pytest.mark.parametrize("helpers", [True, False])
def test_documents_go_beside_the_gates_only_when_the_inputs_have_helpers(
    built: SeedStages, tmp_path: Path, helpers: bool
) -> None:
    """Above the helpers' input limit (the 4x corpus) the documents wait for the gates, so their cards and the
    gates' largest batch are never held at once: the run's block then gives nothing and publishing writes them."""
    with run._documents_beside(built.frames, tmp_path, None, helpers) as started:
        documents = started.result() if started is not None else None
    assert (documents is not None) == helpers
    assert len(_documents(tmp_path)) == (3 if helpers else 0)
