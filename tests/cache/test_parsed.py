"""Per-input parse results from the cache: equal to parsing, only changed inputs parsed, bad entries refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline import config
from pipeline.cache.entries import CacheWarning, write_entry
from pipeline.sources.cached import KIND, dump_records, load_records, parsed_key
from pipeline.sources.registry import ParseResult, read_inputs
from schemas.records import Weapon
from tests.publish.wahapedia_subset import write_subset

CATALOGUES = ("Warhammer 40,000.gst", "Leagues of Votann.cat")


@pytest.fixture(scope="module")
def inputs(wahapedia_dir: Path, bsdata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every format: three page files, a Wahapedia slice, a BSData folder of two files."""
    root = tmp_path_factory.mktemp("inputs")
    shutil.copytree(config.RAW_PAGES_DIR, root / "pages")
    (root / "bsdata").mkdir()
    for name in CATALOGUES:
        shutil.copy(bsdata_dir / name, root / "bsdata" / name)
    return [root / "pages", write_subset(wahapedia_dir, root / "wahapedia"), root / "bsdata"]


def _same(a: ParseResult, b: ParseResult) -> None:
    assert dict(a.dataset.tables()) == dict(b.dataset.tables())
    assert a.report.as_dict() == b.report.as_dict()


def test_cached_results_equal_parsing(inputs: list[Path], tmp_path: Path) -> None:
    plain = read_inputs(inputs)
    first = read_inputs(inputs, tmp_path)
    again = read_inputs(inputs, tmp_path)
    assert (len(first.parsed), first.reused) == (6, ())  # 3 page files, a folder, 2 BSData files (file by file)
    assert (again.parsed, len(again.reused)) == ((), 5)
    _same(first, plain)
    _same(again, plain)
    typed = [w for w in again.dataset.records(Weapon) if w.typed_abilities]
    assert typed  # a field the dumps leave out comes back too
    assert typed == [w for w in plain.dataset.records(Weapon) if w.typed_abilities]


def test_only_the_changed_input_is_parsed(inputs: list[Path], tmp_path: Path) -> None:
    copies = tmp_path / "in"
    for path in inputs:
        shutil.copytree(path, copies / path.name)
    changed = [copies / p.name for p in inputs]
    read_inputs(changed, tmp_path / "cache")
    page = sorted((copies / "pages").iterdir())[1]
    page.write_text(page.read_text() + "\n")
    result = read_inputs(changed, tmp_path / "cache")
    assert result.parsed == (str(page),)
    assert len(result.reused) == 4
    _same(result, read_inputs(changed))


def test_an_entry_that_does_not_validate_warns_and_is_parsed(inputs: list[Path], tmp_path: Path) -> None:
    pages = inputs[0]
    item = sorted(pages.iterdir())[0]
    key = parsed_key(item, pages, "page_export")
    read_inputs([pages], tmp_path)
    entry = tmp_path / KIND / f"{key}.json"
    payload = json.loads(entry.read_text().split("\n", 1)[1])
    payload["records"][0][1]["line"] = -3  # a well-formed entry (its hash matches) with a record the model refuses
    write_entry(tmp_path, KIND, key, payload)
    with pytest.warns(CacheWarning, match="line"):
        result = read_inputs([pages], tmp_path)
    assert str(item) in result.parsed
    _same(result, read_inputs([pages]))


def test_records_load_back_in_their_order_whatever_their_models(inputs: list[Path]) -> None:
    """`load_records` validates a model at a time but gives the records back in the order dumped: here the
    first 3 records of every table, interleaved table by table."""
    tables = [list(records[:3]) for _, records in read_inputs(inputs[:1]).dataset.tables()]
    mixed = [record for row in zip(*(t for t in tables if len(t) == 3), strict=True) for record in row]
    assert len({type(r) for r in mixed}) >= 5
    assert load_records(dump_records(mixed)) == mixed
