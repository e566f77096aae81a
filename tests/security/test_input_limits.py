"""Inputs too large to be honest: a file above the size cap, a file with too many rows, a field or line
above the field cap. Each is one quarantine row with a clear reason and raw text cut at MAX_RAW; the
rest of the input is parsed as usual (limits: pipeline/config.py, docs/sources.md#input-limits)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pipeline import config
from pipeline.sources.accounting import MAX_RAW
from pipeline.sources.registry import read_inputs
from schemas.records import QuarantineRow, Record, Source
from tests.conftest import WAZDAKKA
from tests.publish.wahapedia_subset import write_subset

SCRIPT = Path(sys.executable).parent / "dataslate"
TIMEOUT = 600
FIXTURES = Path(__file__).parent.parent / "fixtures"
#: A field twice the cap (the cap is read from config at call time).
LONG = 2 * config.MAX_INPUT_FIELD_CHARS


def _records(*paths: Path) -> list[Record]:
    return [record for _, rows in read_inputs(list(paths)).dataset.tables() for record in rows]


def _rows(records: list[Record], source_id: str) -> list[QuarantineRow]:
    return [r for r in records if isinstance(r, QuarantineRow) and r.source_id == source_id]


def _sources(records: list[Record]) -> set[str]:
    return {r.source_id for r in records if isinstance(r, Source)}


def test_a_file_above_the_size_cap_is_refused_unread(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    shutil.copy(WAZDAKKA, folder)
    with open(folder / "huge.txt", "wb") as handle:  # sparse: nothing is written but its size
        handle.truncate(config.MAX_INPUT_FILE_BYTES + 1)
    records = _records(folder)
    (row,) = _rows(records, "page_export:huge.txt")
    size, limit = config.MAX_INPUT_FILE_BYTES + 1, config.MAX_INPUT_FILE_BYTES
    assert row.reason == f"input refused: file too large ({size:,} bytes, the limit is {limit:,})"
    assert (row.raw, row.line) == ("", None)
    assert _sources(records) == {"page_export:000_2e2c183ddf21453e.txt"}


def test_a_page_export_with_too_many_lines_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "many.txt"
    page.write_bytes(WAZDAKKA.read_bytes() + b"x\n" * config.MAX_INPUT_ROWS)
    records = _records(page)
    (row,) = _rows(records, "page_export:many.txt")
    lines = WAZDAKKA.read_bytes().count(b"\n") + config.MAX_INPUT_ROWS + 1
    assert row.reason == f"input refused: too many rows ({lines:,}, the limit is {config.MAX_INPUT_ROWS:,})"
    assert _sources(records) == set()


def test_a_wahapedia_table_with_too_many_rows_is_refused(
    wahapedia_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_subset(wahapedia_dir, tmp_path / "wahapedia")
    keywords = folder / "Datasheets_keywords.csv"
    rows = keywords.read_bytes().count(b"\n") - 1
    monkeypatch.setattr(config, "MAX_INPUT_ROWS", rows - 1)
    records = _records(folder)
    (row,) = _rows(records, "wahapedia_csv:Datasheets_keywords.csv")
    assert row.reason == f"input refused: too many rows ({rows:,}, the limit is {rows - 1:,})"
    assert "wahapedia_csv:Datasheets_keywords.csv" not in _sources(records)
    assert not [r for r in records if r.TABLE == "keywords"]


def test_a_page_line_above_the_field_cap_is_quarantined_and_cut(tmp_path: Path) -> None:
    lines = WAZDAKKA.read_text(encoding="utf-8").split("\n")
    lines.insert(29, "K" * LONG)  # among the keywords, where it once became a 5 MB keyword
    page = tmp_path / "long.txt"
    page.write_text("\n".join(lines), encoding="utf-8")
    records = _records(page)
    (row,) = [r for r in _rows(records, "page_export:long.txt") if r.line == 30]
    assert row.reason == f"line too long ({LONG:,} characters, the limit is {config.MAX_INPUT_FIELD_CHARS:,})"
    assert row.raw == "K" * MAX_RAW + "..."
    assert not [r for r in records if "K" * 1000 in r.model_dump_json() and not isinstance(r, QuarantineRow)]
    assert [r.name for r in records if r.TABLE == "datasheets"] == ["Wazdakka Gutsmek"]  # type: ignore[attr-defined]


def _long_description(abilities: Path, length: int) -> str:
    """Give the first ability of Abilities.csv a description of `length` characters; its id."""
    header, first, *rest = abilities.read_bytes().split(b"\n")
    fields = first.split(b"|")
    fields[4] = b"A" * length
    abilities.write_bytes(b"\n".join([header, b"|".join(fields), *rest]))
    return fields[0].decode()


def test_a_wahapedia_field_above_the_cap_quarantines_its_row(wahapedia_dir: Path, tmp_path: Path) -> None:
    folder = write_subset(wahapedia_dir, tmp_path / "wahapedia")
    ability = _long_description(folder / "Abilities.csv", LONG)
    records = _records(folder)
    (row,) = _rows(records, "wahapedia_csv:Abilities.csv")
    cap = config.MAX_INPUT_FIELD_CHARS
    assert (row.line, row.table) == (2, "Abilities.csv")
    assert row.reason == f"csv: field description too long ({LONG:,} characters, the limit is {cap:,})"
    assert row.raw.startswith(f"{ability}|") and row.raw.endswith("...") and len(row.raw) == MAX_RAW + 3
    assert "wahapedia_csv:Abilities.csv" in _sources(records)
    assert not [r for r in records if "A" * 1000 in r.model_dump_json() and not isinstance(r, QuarantineRow)]


def test_a_catalogue_with_a_value_above_the_cap_is_refused_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "bsdata"
    shutil.copytree(FIXTURES / "bsdata" / "army", folder)
    library = folder / "Test Library.cat"
    text = library.read_text(encoding="utf-8")
    walkers = '<description>Walkers can move over terrain 4" high or less.</description>'
    assert text.count(walkers) == 1
    library.write_text(text.replace(walkers, f"<description>{'D' * LONG}</description>"), encoding="utf-8")
    line = text[: text.index(walkers)].count("\n") + 1
    records = _records(folder)
    (row,) = _rows(records, "bsdata:Test Library.cat")
    cap = config.MAX_INPUT_FIELD_CHARS
    assert row.reason == f"text of <description> too long ({LONG:,} characters, the limit is {cap:,})"
    assert (row.line, row.raw) == (line, "")
    assert _sources(records) == {"bsdata:Test Army.cat", "bsdata:Test Library.cat", "bsdata:Test System.gst"}


@pytest.mark.slow
def test_a_50_mb_field_in_a_shared_ability_is_quarantined_by_a_real_run(wahapedia_dir: Path, tmp_path: Path) -> None:
    """The attack that drove a full-export run to 17 GB: now one quarantine row, its raw text cut."""
    folder = write_subset(wahapedia_dir, tmp_path / "wahapedia")
    ability = _long_description(folder / "Abilities.csv", 50 * 1024 * 1024)
    out = tmp_path / "out"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    result = subprocess.run(
        [str(SCRIPT), "run", "--input", str(folder), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    quarantine = pl.read_parquet(out / config.LATEST_NAME / "quarantine.parquet")
    row = quarantine.row(by_predicate=pl.col("source_id") == "wahapedia_csv:Abilities.csv", named=True)
    assert row["reason"].startswith("csv: field description too long (52,428,800 characters")
    assert row["raw"].startswith(f"{ability}|") and len(row["raw"]) == MAX_RAW + 3
    largest = max(p.stat().st_size for p in (out / config.LATEST_NAME).rglob("*") if p.is_file())
    assert largest < 50 * 1024 * 1024
