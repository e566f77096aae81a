"""Issue 10, item 6: hostile XML in BSData catalogues, through the `dataslate` console script.

Deep nesting (~350 selectionEntries) aborted the whole run with a RecursionError; an entity reference
cut the text after it, and an external entity must never be read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.sources.bsdata.catalogues import nested, unit_catalogue

SCRIPT = Path(sys.executable).parent / "dataslate"


def parse(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), "parse", str(folder)], capture_output=True, text=True, timeout=300, check=False)


def test_350_nested_entries_parse_to_the_end(tmp_path: Path) -> None:
    (tmp_path / "Deep.cat").write_text(unit_catalogue(nested(350)), encoding="utf-8")
    done = parse(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "RecursionError" not in done.stdout + done.stderr
    assert "weapons" in done.stdout


def test_nesting_libxml2_refuses_is_one_quarantined_file_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "Deeper.cat").write_text(unit_catalogue(nested(3000)), encoding="utf-8")
    done = parse(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "quarantine" in done.stdout


@pytest.mark.slow  # a full release through the console script
def test_an_external_entity_is_never_loaded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    inputs = tmp_path / "in"
    inputs.mkdir()
    head = f'<!DOCTYPE catalogue [<!ENTITY leak SYSTEM "{secret.as_uri()}">]>'
    rule = '<rules><rule id="r-1" name="Leaky"><description>Text &leak; text.</description></rule></rules>'
    (inputs / "Leak.cat").write_text(unit_catalogue(rule, head), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(
        [str(SCRIPT), "run", "--input", str(inputs), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    published = [p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.is_symlink()]
    assert published and not any(b"TOP SECRET" in data for data in published)
    assert any(b"Text &leak; text." in data for data in published)
