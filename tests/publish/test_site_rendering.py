"""The site rendered by the site helper while the run goes on: the report of the pages written there, and a
rendering left unasked (the gates stopped the run) leaves the helper free for the next run."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from pipeline import helper_process
from pipeline.helper_process import HelperWarning, start_helper
from pipeline.publish.site.build import write_site
from pipeline.publish.site_rendering import start_site
from pipeline.store.parquet import write_parquet_tables
from tests.seed_frames import seed_stages


@pytest.fixture(scope="module")
def frames() -> dict[str, object]:
    return dict(seed_stages().frames)


def _release(root: Path, frames: dict[str, object]) -> Path:
    root.mkdir()
    write_parquet_tables(frames, root)  # type: ignore[arg-type]
    return root


def test_a_rendering_left_unasked_frees_the_helper(
    tmp_path: Path, frames: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the first reply never drained, the second request would find the helper busy and render here,
    warned: the warning is an error here."""
    assert start_helper("site") is not None
    monkeypatch.setattr(helper_process, "BUSY_TIMEOUT_S", 5.0)
    warnings.simplefilter("error", HelperWarning)
    first = _release(tmp_path / "first", frames)
    with pytest.raises(RuntimeError, match="gate"), start_site(frames, first, "v1", stored=True):  # type: ignore[arg-type]
        raise RuntimeError("a gate failed")
    second = _release(tmp_path / "second", frames)
    with start_site(frames, second, "v2", stored=True) as site:  # type: ignore[arg-type]
        report = site.report()
    assert report == write_site(frames, tmp_path / "here", "v2")  # type: ignore[arg-type]
    assert (second / "site" / "index.html").read_bytes() == (tmp_path / "here" / "site" / "index.html").read_bytes()


def test_without_the_parquet_files_the_site_renders_here(tmp_path: Path, frames: dict[str, object]) -> None:
    """`stored=False`: the helper is not asked (it would read no tables); the report is the pages written here."""
    with start_site(frames, tmp_path, "v3", stored=False) as site:  # type: ignore[arg-type]
        assert not (tmp_path / "site").exists()
        report = site.report()
    assert report.pages == len(list((tmp_path / "site").rglob("*.html")))
