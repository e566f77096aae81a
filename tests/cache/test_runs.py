"""Whole-run reuse: an unchanged rerun gives `latest` back without computing; any change recomputes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline import config
from pipeline.cache.entries import CacheWarning, entry_path
from pipeline.cache.fingerprint import inputs_key
from pipeline.publish.manifest import duckdb_content_hashes
from pipeline.run import RunResult, run_pipeline
from tests.publish.releases import invoke

PAGES = sorted(config.RAW_PAGES_DIR.glob("*.txt"))


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs") / "pages"
    folder.mkdir()
    for page in PAGES:
        shutil.copy(page, folder / page.name)
    return folder


@pytest.fixture(scope="module")
def first(pages: Path, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return run_pipeline([pages], tmp_path_factory.mktemp("out") / "out")


def test_an_unchanged_rerun_reuses_latest_and_says_so(first: RunResult, pages: Path) -> None:
    out = first.release.parent
    again = invoke("run", "--input", pages, "--out", out)
    assert again.exit_code == 0, again.output
    assert f"unchanged: {first.version} reused" in again.stdout
    assert "parse inputs" not in again.stderr  # no stage ran
    reused = run_pipeline([pages], out)
    assert (reused.reused, reused.version, reused.release) == (True, first.version, first.release)
    assert reused.row_counts == first.row_counts
    assert reused.reports.as_dict() == json.loads(json.dumps(first.reports.as_dict()))  # as the manifest holds it
    assert reused.reports.quality.as_dict() == first.reports.quality.as_dict()


def test_the_cache_is_never_published(first: RunResult) -> None:
    assert (first.release.parent / config.CACHE_DIRNAME / "runs").is_dir()
    assert not [p for p in first.release.rglob("*") if ".cache" in p.parts]


def test_a_changed_input_is_recomputed(first: RunResult, pages: Path, tmp_path: Path) -> None:
    changed = tmp_path / "pages"
    shutil.copytree(pages, changed)
    page = sorted(changed.iterdir())[0]
    page.write_text(page.read_text() + "\n")
    assert inputs_key([changed]) != inputs_key([pages])
    out = tmp_path / "out"
    shutil.copytree(first.release.parent, out, symlinks=True)
    result = run_pipeline([changed], out)
    assert not result.reused


def test_a_corrupt_run_entry_warns_and_recomputes(first: RunResult, pages: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(first.release.parent, out, symlinks=True)
    entry = entry_path(out / config.CACHE_DIRNAME, "runs", inputs_key([pages], config.MATCHUP_SCENARIOS))
    entry.write_text(entry.read_text().replace(first.release.name, "v000000000000"))
    with pytest.warns(CacheWarning, match="payload does not match its sha256"):
        result = run_pipeline([pages], out)
    assert (result.reused, result.version) == (False, first.version)
    assert run_pipeline([pages], out).reused  # the entry was rewritten


def test_a_release_changed_since_is_not_reused(first: RunResult, pages: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(first.release.parent, out, symlinks=True)
    manifest = out / first.release.name / "manifest.json"
    manifest.write_text(manifest.read_text() + " ")
    assert not run_pipeline([pages], out).reused


def test_no_cache_when_switched_off(
    first: RunResult, pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATASLATE_CACHE", "off")
    out = tmp_path / "out"
    shutil.copytree(first.release.parent, out, symlinks=True)
    assert not run_pipeline([pages], out).reused


@pytest.mark.slow
def test_a_changed_page_is_the_only_input_parsed_again(pages: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in" / "pages"
    shutil.copytree(pages, folder)
    first = run_pipeline([folder], tmp_path / "out")
    assert (len(first.inputs_parsed), first.inputs_from_cache) == (3, ())
    page = sorted(folder.iterdir())[2]
    page.write_text(page.read_text() + "\n")
    second = run_pipeline([folder], tmp_path / "out")
    assert not second.reused
    assert second.inputs_parsed == (str(page),)
    assert len(second.inputs_from_cache) == 2
    assert second.version != first.version  # the page's sha256 is part of the version


#: Cache kinds of what unchanged rows reuse (docs/releases.md#unchanged-tables, docs/quality.md#memo,
#: docs/releases.md#faction-documents).
KINDS = ("quality", "feed", "duckdb_contents", "faction_documents", "duckdb_file")


def test_a_change_the_matrix_does_not_read_places_it_from_the_cache(
    first: RunResult, pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blank line at the end of a page moves its sha256 (a new version) but no engine input: every scenario's
    matrix file is placed from the cache, and every table's feed file but that of `sources` (which holds the
    page's sha256), with the bytes a run without a cache writes."""
    changed = tmp_path / "pages"
    shutil.copytree(pages, changed)
    page = sorted(changed.iterdir())[0]
    page.write_text(page.read_text() + "\n")
    out = tmp_path / "out"
    shutil.copytree(first.release.parent, out, symlinks=True)
    said = invoke("run", "--input", changed, "--out", out)
    assert said.exit_code == 0, said.output
    assert "damage_matrix: 0 partitions computed, 5 from the cache" in said.stderr
    # the quality suites that read `sources` (its own, datasheets, findings, quarantine, rule_occurrences,
    # source_checks) miss their files' outcomes; of those GX sees other rows in `sources` only (the page's
    # sha256): the five others read their rows' outcomes back, as do the 31 whose files did not change
    assert "quality: 1 partitions computed, 36 from the cache" in said.stderr
    assert "feed: 1 partitions computed, 34 from the cache" in said.stderr  # only `sources` (the page's sha256)
    assert "faction_documents: 0 partitions computed, 3 from the cache" in said.stderr  # none reads `sources`
    assert "duckdb_tables: 1 partitions computed, 34 from the cache" in said.stderr  # no foreign key names `sources`
    result = run_pipeline([changed], out)  # the same inputs again: the release is reused
    assert result.reused and result.version != first.version
    assert len(list((out / config.CACHE_DIRNAME / "parts" / "damage_matrix").glob("*.json"))) == 5  # pruned to these
    kept = {kind: len(list((out / config.CACHE_DIRNAME / "parts" / kind).glob("*.json"))) for kind in KINDS}
    assert kept == {"quality": 37, "feed": 35, "duckdb_contents": 35, "faction_documents": 3, "duckdb_file": 1}
    monkeypatch.setenv("DATASLATE_CACHE", "off")
    cold = run_pipeline([changed], tmp_path / "cold")
    assert cold.partitions["damage_matrix"] == (5, 0)
    for path in sorted((cold.release / "damage_matrix").rglob("*.parquet")):
        assert (result.release / path.relative_to(cold.release)).read_bytes() == path.read_bytes()
    files = json.loads((result.release / "manifest.json").read_text())["files"]
    cold_files = json.loads((cold.release / "manifest.json").read_text())["files"]
    patched, whole = result.release / config.DUCKDB_FILENAME, cold.release / config.DUCKDB_FILENAME
    assert duckdb_content_hashes(patched) == duckdb_content_hashes(whole)  # computed, none taken from the cache
    checks = {"quality/summary.json", "quality/index.html"}  # the cold run had no previous release to check against
    assert {k: v for k, v in files.items() if k not in checks} == {
        k: v for k, v in cold_files.items() if k not in checks
    }
