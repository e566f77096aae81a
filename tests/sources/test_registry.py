"""Reading a mix of inputs: format detection, expansion, portable source paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.errors import InputFormatError
from pipeline.sources import detect_format
from pipeline.sources.registry import read_inputs


def test_formats_are_detected_per_path(pages_dir: Path, wahapedia_dir: Path, bsdata_dir: Path) -> None:
    assert detect_format(pages_dir) == "page_export"
    assert detect_format(pages_dir / "000_2e2c183ddf21453e.txt") == "page_export"
    assert detect_format(wahapedia_dir) == "wahapedia_csv"
    assert detect_format(bsdata_dir) == "bsdata"
    assert detect_format(bsdata_dir / "Orks.cat") == "bsdata"


def test_unknown_or_missing_inputs_raise_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello")
    with pytest.raises(InputFormatError, match="cannot tell the format"):
        detect_format(tmp_path)
    with pytest.raises(InputFormatError, match="does not exist"):
        detect_format(tmp_path / "nope")


def test_source_paths_do_not_depend_on_where_the_inputs_lie(pages_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "pages"
    shutil.copytree(pages_dir, copy)
    here = [s.row() for s in read_inputs([pages_dir]).table("sources")]
    there = [s.row() for s in read_inputs([copy]).table("sources")]
    assert here == there
    assert [r["path"] for r in here] == [
        "pages/000_2e2c183ddf21453e.txt",
        "pages/002_6cc6c763f2509c79.txt",
        "pages/003_39e7b05ac4966267.txt",
    ]
