"""Reading a mix of inputs: format detection, expansion, portable source paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.errors import InputFormatError
from pipeline.sources import detect_format
from pipeline.sources.bsdata.filecache import parse_folder
from pipeline.sources.registry import read_inputs
from schemas.records import Source


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
    here = [s.row() for s in read_inputs([pages_dir]).dataset.table("sources")]
    there = [s.row() for s in read_inputs([copy]).dataset.table("sources")]
    assert here == there
    assert [r["path"] for r in here] == [
        "pages/000_2e2c183ddf21453e.txt",
        "pages/002_6cc6c763f2509c79.txt",
        "pages/003_39e7b05ac4966267.txt",
    ]


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_every_file_parsed_has_one_report_of_one_shape(pages_dir: Path) -> None:
    result = read_inputs([pages_dir, FIXTURES / "wahapedia" / "broken", FIXTURES / "bsdata" / "army"])
    sources = {s.source_id: s for s in result.dataset.table("sources") if isinstance(s, Source)}
    reports = {r.source_id: r for r in result.report.files}
    for source_id, source in sources.items():
        report = reports[source_id]
        assert (report.format, report.rows_in, report.rows_curated, report.rows_quarantined) == (
            source.format, source.rows_in, source.rows_curated, source.rows_quarantined,
        )  # fmt: skip
    # the six tables the broken export lacks have no Source, but a report saying so
    missing = {sid: r.quarantine for sid, r in reports.items() if sid not in sources}
    assert len(missing) == 6 and set(map(str, missing.values())) == {"{'csv: file missing': 1}"}
    assert result.report.as_dict()["totals"] == {
        "bsdata": {"files": 3, "rows_in": 16, "rows_curated": 7, "rows_quarantined": 9},
        "page_export": {"files": 3, "rows_in": 1597, "rows_curated": 1594, "rows_quarantined": 3},
        "wahapedia_csv": {"files": 18, "rows_in": 51, "rows_curated": 24, "rows_quarantined": 27},
    }


def test_reports_carry_what_only_their_format_knows(pages_dir: Path) -> None:
    result = read_inputs([pages_dir / "003_39e7b05ac4966267.txt", FIXTURES / "bsdata" / "army"])
    reports = {r.source_id: r for r in result.report.files}
    invocatus = reports["page_export:003_39e7b05ac4966267.txt"]
    assert dict(invocatus.counts) == {
        "record lines": 405, "furniture lines": 27, "duplicate lines": 48, "quarantine lines": 1,
        "profiles_without_statline": 1,
    }  # fmt: skip
    assert invocatus.records["weapons"] == 3 and invocatus.records["stratagems"] == 19
    assert invocatus.quarantine == {"sentence after a rule's summary, without a heading": 1}
    army = reports["bsdata:Test Army.cat"]
    assert army.notes == ("linked catalogue not available: Missing Library",)
    assert dict(army.counts) == {
        "hidden_fragments": 0, "non_unit_root_entries": 1, "points_modifiers_skipped": 1, "purchases_skipped": 3,
        "force_only_skipped": 0, "unlocked_elements": 0, "values_read_loosely": 0,
    }  # fmt: skip
    assert {c["check_name"] for c in army.checks} == {"statlines", "weapons", "invulns", "points"}
    assert (army.records["datasheets"], army.records["rule_blocks"], sum(army.quarantine.values())) == (2, 1, 9)


#: BSData files of every kind: with missing links (army), unreadable XML and links to it (broken), a file alone.
MIXES = {
    "fixtures": [FIXTURES / "bsdata" / "army", FIXTURES / "wahapedia" / "broken", FIXTURES / "bsdata" / "broken"],
    "one catalogue": [FIXTURES / "bsdata" / "army" / "Test Army.cat"],
}


@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("cached", [False, True])
def test_parsing_on_forked_processes_gives_what_one_process_gives(
    pages_dir: Path, tmp_path: Path, mix: str, cached: bool
) -> None:
    paths = [pages_dir, *MIXES[mix]]
    alone = read_inputs(paths, tmp_path / "one" if cached else None, workers=1)
    forked = read_inputs(paths, tmp_path / "two" if cached else None, workers=2)
    assert dict(forked.dataset.tables()) == dict(alone.dataset.tables())
    assert forked.report.as_dict() == alone.report.as_dict()
    assert (forked.parsed, forked.reused) == (alone.parsed, alone.reused)
    assert len(alone.dataset.table("source_checks")) == 4 * (4 if mix == "fixtures" else 1)  # readable files
    if cached:  # the entries written on forked processes are those written here, byte for byte
        entries = _files(tmp_path / "one")
        assert _files(tmp_path / "two") == entries
        for item in (p for p in MIXES[mix] if detect_format(p) == "bsdata"):  # as a plain folder parse writes them
            parse_folder(item, tmp_path / "plain", "folder key")
        plain = _files(tmp_path / "plain", "parsed-bsdata-file")
        assert len(plain) == (5 if mix == "fixtures" else 1)  # every file, readable or not
        assert _files(tmp_path / "two", "parsed-bsdata-file") == plain


def _files(folder: Path, kind: str = "") -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted((folder / kind).rglob("*")) if p.is_file()}


def test_a_corpus_parsed_on_forked_processes_gives_what_one_process_gives(bsdata_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bsdata"
    folder.mkdir()
    for name in ("Warhammer 40,000.gst", "Library - Titans.cat", "Chaos - Titanicus Traitoris.cat", "Orks.cat"):
        shutil.copyfile(bsdata_dir / name, folder / name)
    alone, forked = read_inputs([folder], workers=1), read_inputs([folder], workers=2)
    assert dict(forked.dataset.tables()) == dict(alone.dataset.tables())
    assert forked.report.as_dict() == alone.report.as_dict()
    assert len(alone.dataset.table("datasheets")) > 100


def test_the_parse_forks_only_onto_cpus_left_idle() -> None:
    from pipeline.runtime import available_cpus
    from pipeline.sources.registry import idle_cpus

    assert 1 <= idle_cpus() <= available_cpus()
