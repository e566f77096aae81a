"""A BSData folder in the cache file by file: one changed catalogue is parsed again with those that link it,
the rest come from the cache, and the result equals a cold parse (records, self-checks, reports)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pipeline.cache.entries import CacheWarning, write_entry
from pipeline.sources.bsdata.filecache import FOLDER_KIND, KIND
from pipeline.sources.registry import ParseResult, read_inputs
from schemas.records import SourceCheck

#: The game system, a library, a catalogue linking it (and two catalogues not in the folder), one on its own.
CATALOGUES = ("Warhammer 40,000.gst", "Library - Titans.cat", "Chaos - Titanicus Traitoris.cat", "Unaligned Forces.cat")
POINTS = re.compile(r'(<cost name="pts" typeId="[^"]+" value=")(\d+)(")')


@pytest.fixture
def folder(bsdata_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "bsdata"
    copy.mkdir()
    for name in CATALOGUES:
        shutil.copyfile(bsdata_dir / name, copy / name)
    return copy


def _same(a: ParseResult, b: ParseResult) -> None:
    assert dict(a.dataset.tables()) == dict(b.dataset.tables())
    assert a.report.as_dict() == b.report.as_dict()


def _names(paths: tuple[str, ...]) -> set[str]:
    return {Path(p).name for p in paths}


def _raise_points(path: Path) -> None:
    text, found = POINTS.subn(lambda m: f"{m[1]}{int(m[2]) + 5}{m[3]}", path.read_text(encoding="utf-8"), count=1)
    assert found == 1
    path.write_text(text, encoding="utf-8")


def test_cold_cached_and_unchanged_parses_are_equal(folder: Path, tmp_path: Path) -> None:
    plain = read_inputs([folder])
    first = read_inputs([folder], tmp_path / "cache")
    again = read_inputs([folder], tmp_path / "cache")
    assert (_names(first.parsed), first.reused) == (set(CATALOGUES), ())
    assert (again.parsed, again.reused) == ((), (str(folder),))  # the folder's entry: no XML loaded
    assert len(plain.dataset.records(SourceCheck)) == 4 * len(CATALOGUES)
    _same(first, plain)
    _same(again, plain)


@pytest.mark.parametrize(
    ("changed", "parsed"),
    [
        ("Unaligned Forces.cat", {"Unaligned Forces.cat"}),
        ("Library - Titans.cat", {"Library - Titans.cat", "Chaos - Titanicus Traitoris.cat"}),  # its scope changed
    ],
)
@pytest.mark.parametrize("workers", [1, 2])
def test_a_changed_catalogue_is_parsed_with_those_that_link_it(
    folder: Path, tmp_path: Path, changed: str, parsed: set[str], workers: int
) -> None:
    cache = tmp_path / "cache"
    before = read_inputs([folder], cache, workers=workers)
    _raise_points(folder / changed)
    after = read_inputs([folder], cache, workers=workers)  # 2: the changed ones parsed on forked processes
    assert _names(after.parsed) == parsed
    assert _names(after.reused) == set(CATALOGUES) - parsed
    cold = read_inputs([folder])
    _same(after, cold)
    assert dict(cold.dataset.tables())["points"] != dict(before.dataset.tables())["points"]
    again = read_inputs([folder], cache, workers=workers)  # the folder's entry lists its files in file order
    assert (again.parsed, again.reused) == ((), (str(folder),))
    _same(again, cold)


def _entries(cache: Path, kind: str) -> list[Path]:
    return sorted((cache / kind).glob("*.json"))


def test_a_file_entry_that_does_not_fit_warns_and_that_file_is_parsed(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    read_inputs([folder], cache)
    for entry in _entries(cache, FOLDER_KIND):
        entry.unlink()  # the folder's own entry gone: the files' entries are read
    broken = 0
    for entry in _entries(cache, KIND):
        payload = json.loads(entry.read_text(encoding="utf-8").split("\n", 1)[1])
        if payload["ledger"]["visited"]:
            payload["ledger"]["visited"][0] = [payload["ledger"]["visited"][0][0], 10**6]  # no such element
            write_entry(cache, KIND, entry.stem, payload)  # well-formed, its hash matches
            broken += 1
    assert broken
    with pytest.warns(CacheWarning, match="index out of range"):
        result = read_inputs([folder], cache)
    assert len(result.parsed) == broken
    _same(result, read_inputs([folder]))


def test_a_folder_entry_whose_file_entry_is_gone_is_a_miss(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    read_inputs([folder], cache)
    _entries(cache, KIND)[0].unlink()
    result = read_inputs([folder], cache)
    assert (len(result.parsed), len(result.reused)) == (1, len(CATALOGUES) - 1)
    _same(result, read_inputs([folder]))
