"""Inputs that reach outside their folder or never end: each is refused with one quarantine row that holds
nothing of it, for every format, in-process and through real processes (FIFOs, links, a socket, a
device), each command under a timeout so a regression fails instead of hanging."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pipeline import config
from pipeline.sources.registry import read_inputs
from schemas.records import Datasheet, QuarantineRow, Record, Source
from tests.conftest import WAZDAKKA
from tests.publish.wahapedia_subset import write_subset

SCRIPT = Path(sys.executable).parent / "dataslate"
#: Seconds a command may take before the test fails it (a hang is the regression; parsing takes < 5 s).
TIMEOUT = 120
#: A line no input holds: whatever holds it was read from outside the input folder.
SECRET = "SECRET-7f3a9c shadow:$6$rounds"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\n{SECRET} again\n")
    return path


def _fifo(path: Path, secret: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path, secret: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays


def _link(target: str | Path) -> Callable[[Path, Path], None]:
    return lambda path, secret: path.symlink_to(target)


def _device(path: Path, secret: Path) -> None:
    """A character device inside the folder (/dev/zero's numbers); needs the right to mknod."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("mknod is not permitted here")


#: name -> (how the entry is made, the refusal's reason after `input refused: `).
ATTACKS: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "link out": (lambda path, secret: path.symlink_to(secret), "symlink leads outside the input folder"),
    "link to /etc/shadow": (_link("/etc/shadow"), "symlink leads outside the input folder"),
    "link to /dev/zero": (_link("/dev/zero"), "symlink leads outside the input folder"),
    "link to a folder": (_link("."), "a folder, not a regular file"),
    "fifo": (_fifo, "a FIFO, not a regular file"),
    "socket": (_socket, "a socket, not a regular file"),
    "device": (_device, "a character device, not a regular file"),
    "link loop": (lambda path, secret: path.symlink_to(path.name), "symlink loop"),
    "dangling link": (_link("nowhere"), "dangling symlink or missing file"),
}


def _plant(folder: Path, name: str, attack: str, secret: Path) -> None:
    make, _ = ATTACKS[attack]
    make(folder / name, secret)


def _records(folder: Path) -> list[Record]:
    return [record for _, rows in read_inputs([folder]).dataset.tables() for record in rows]


def _quarantine(records: list[Record]) -> dict[str, QuarantineRow]:
    return {r.source_id: r for r in records if isinstance(r, QuarantineRow) and r.reason.startswith("input refused")}


def _holds(records: list[Record], text: str) -> list[Record]:
    return [r for r in records if text in r.model_dump_json()]


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_page_export_that_is_not_a_regular_file_inside_its_folder_is_refused(
    attack: str, tmp_path: Path, secret: Path
) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    shutil.copy(WAZDAKKA, folder)
    _plant(folder, "attack.txt", attack, secret)
    records = _records(folder)
    refused = _quarantine(records)
    assert list(refused) == ["page_export:attack.txt"]
    row = refused["page_export:attack.txt"]
    assert (row.reason, row.raw, row.line, row.table) == (f"input refused: {ATTACKS[attack][1]}", "", None, "file")
    sources = [r.source_id for r in records if isinstance(r, Source)]
    assert sources == ["page_export:000_2e2c183ddf21453e.txt"], "the seed is parsed, the refused file has no row"
    assert _holds(records, SECRET) == []


def test_a_link_inside_the_folder_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(WAZDAKKA, folder / "sub" / "wazdakka.txt")
    (folder / "linked.txt").symlink_to("sub/wazdakka.txt")
    records = _records(folder)
    assert _quarantine(records) == {}
    assert [r.name for r in records if isinstance(r, Datasheet)] == ["Wazdakka Gutsmek"]


def test_wahapedia_tables_that_are_not_regular_files_are_refused(
    wahapedia_dir: Path, tmp_path: Path, secret: Path
) -> None:
    folder = write_subset(wahapedia_dir, tmp_path / "wahapedia")
    for name, attack in (("Abilities.csv", "link out"), ("Stratagems.csv", "fifo"), ("Source.csv", "link loop")):
        (folder / name).unlink()
        _plant(folder, name, attack, secret)
    records = _records(folder)
    refused = {k: v.reason for k, v in _quarantine(records).items()}
    assert refused == {
        "wahapedia_csv:Abilities.csv": "input refused: symlink leads outside the input folder",
        "wahapedia_csv:Stratagems.csv": "input refused: a FIFO, not a regular file",
        "wahapedia_csv:Source.csv": "input refused: symlink loop",
    }
    sources = {r.source_id for r in records if isinstance(r, Source)}
    assert len(sources) == 15 and not sources & set(refused)
    assert _holds(records, SECRET) == []


def test_bsdata_catalogues_that_are_not_regular_files_are_refused(tmp_path: Path, secret: Path) -> None:
    folder = tmp_path / "bsdata"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "bsdata" / "army", folder)
    secret_cat = secret.with_suffix(".cat")
    secret_cat.write_text(f"<catalogue>{SECRET}</catalogue>\n<broken")
    (folder / "Leak.cat").symlink_to(secret_cat)
    os.mkfifo(folder / "Pipe.cat")
    (folder / "Zero.gst").symlink_to("/dev/zero")
    records = _records(folder)
    refused = {k: v.reason for k, v in _quarantine(records).items()}
    assert refused == {
        "bsdata:Leak.cat": "input refused: symlink leads outside the input folder",
        "bsdata:Pipe.cat": "input refused: a FIFO, not a regular file",
        "bsdata:Zero.gst": "input refused: symlink leads outside the input folder",
    }
    assert {r.source_id for r in records if isinstance(r, Source)} == {
        "bsdata:Test Army.cat",
        "bsdata:Test Library.cat",
        "bsdata:Test System.gst",
    }
    assert _holds(records, SECRET) == []


# --- real processes ------------------------------------------------------------------------------


#: The attacks a real-process test plants (a device needs the right to mknod).
PLANTED = [attack for attack in ATTACKS if attack != "device"]


@pytest.fixture
def attack_folder(tmp_path: Path, secret: Path) -> Iterator[Path]:
    """A page-export folder with the seed and one entry per attack in PLANTED."""
    folder = tmp_path / "pages"
    folder.mkdir()
    shutil.copy(WAZDAKKA, folder)
    for number, attack in enumerate(PLANTED):
        _plant(folder, f"attack{number}.txt", attack, secret)
    yield folder


def _dataslate(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(cwd), "COLUMNS": "200"}
    return subprocess.run(
        [str(SCRIPT), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def test_parse_refuses_a_fifo_and_links_out_without_hanging(attack_folder: Path, tmp_path: Path) -> None:
    seed_only = read_inputs([WAZDAKKA]).dataset.counts()["quarantine"]
    result = _dataslate("parse", attack_folder, "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["quarantine"] == seed_only + len(PLANTED)
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.slow
def test_run_publishes_the_refusals_and_nothing_of_the_refused_files(attack_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _dataslate("run", "--input", attack_folder, "--out", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    release = (out / config.LATEST_NAME).resolve()
    quarantine = (release / "feed" / "quarantine.ndjson").read_text()
    assert quarantine.count('"reason":"input refused: ') == len(PLANTED)
    shadow = Path("/etc/shadow")
    leaked = [SECRET] + ([shadow.read_text().splitlines()[0]] if os.access(shadow, os.R_OK) else [])
    for path in release.rglob("*"):
        if path.is_file() and path.suffix != ".duckdb":
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not [line for line in leaked if line in text], path
