"""Attacks on `dataslate fetch` (issue 10, item 7; the BSData archive of issue 11), each a regression test.

Every attack runs against a real HTTP server on 127.0.0.1 (`tests/fetch/loopback.py`)
and a folder that already holds good copies: the attacked file must fail with a
one-line reason, keep its good copy byte for byte, and not stop the other files.
Archives are built at test time from the shared catalogues (`tests/fetch/archives.py`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from pipeline import config
from pipeline.fetch import BsdataReport, FetchReport, fetch_bsdata, fetch_wahapedia
from pipeline.fetch.archive import ArchiveLimits
from pipeline.fetch.bsdata import DEFAULT_ARCHIVE_LIMITS, DEFAULT_LIMITS
from tests.fetch.archives import TOP, Member, repo_members, tar_gz
from tests.fetch.loopback import Loopback, Reply, gzipped, static

FILES = ("Datasheets.csv", "Factions.csv", "Source.csv")
TARGET = "Datasheets.csv"
FAST: dict[str, Any] = {"timeout": 2.0, "retries": 1, "backoff": 0.001, "deadline": 10.0}


@pytest.fixture
def site() -> Iterator[Loopback]:
    with Loopback() as server:
        yield server


@pytest.fixture
def good(tmp_path: Path, wahapedia_dir: Path, site: Loopback) -> Path:
    """A folder holding good copies of FILES, and a site serving the same files."""
    into = tmp_path / "wahapedia"
    into.mkdir()
    for name in config.WAHAPEDIA_FILES:
        site.answer(f"/w/{name}", static((wahapedia_dir / name).read_bytes()))
    for name in FILES:
        shutil.copyfile(wahapedia_dir / name, into / name)
    return into


def _fetch(site: Loopback, into: Path, **overrides: Any) -> FetchReport:
    return fetch_wahapedia(site.url("/w/"), into, files=FILES, **{**FAST, **overrides})


def _assert_only_target_failed(report: FetchReport, into: Path, wahapedia_dir: Path) -> str:
    """The attacked file failed and kept its good copy; the others were fetched. Returns the reason."""
    assert list(report.failed) == [TARGET]
    assert sorted(report.fetched) == sorted(set(FILES) - {TARGET})
    assert (into / TARGET).read_bytes() == (wahapedia_dir / TARGET).read_bytes()
    assert [p.name for p in into.iterdir() if p.name.endswith(".part")] == []
    return report.failed[TARGET]


def _real_header(wahapedia_dir: Path) -> bytes:
    return (wahapedia_dir / TARGET).read_bytes().split(b"\n", 1)[0] + b"\n"


# -- decompression bombs ---------------------------------------------------------------


def test_a_stacked_double_gzip_bomb_is_refused_without_inflating(
    site: Loopback, good: Path, wahapedia_dir: Path
) -> None:
    bomb = gzipped(bytes(64 << 20), layers=2)
    assert len(bomb) < 8_000  # kilobytes on the wire, 64 MiB after two inflations
    site.serve(f"/w/{TARGET}", Reply(200, bomb, {"Content-Encoding": "gzip, gzip"}))
    reason = _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir)
    assert reason == "stacked Content-Encoding refused: 'gzip, gzip'"


def test_a_double_gzip_announced_as_one_gzip_is_refused_as_content(
    site: Loopback, good: Path, wahapedia_dir: Path
) -> None:
    site.serve(f"/w/{TARGET}", Reply(200, gzipped(bytes(64 << 20), layers=2), {"Content-Encoding": "gzip"}))
    reason = _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir)
    assert re.fullmatch(r"refused content: not UTF-8 \(byte \d+\)", reason)


def test_a_gzip_bomb_stops_at_the_size_limit_while_inflating(site: Loopback, good: Path, wahapedia_dir: Path) -> None:
    """A body that looks like the table for 32 MiB: the decoded-size cap, not the check, stops it."""
    body = _real_header(wahapedia_dir) + b"1|" + b"a" * (32 << 20) + b"|\n"
    site.serve(f"/w/{TARGET}", Reply(200, gzipped(body), {"Content-Encoding": "gzip"}))
    reason = _assert_only_target_failed(_fetch(site, good, max_bytes=4 << 20), good, wahapedia_dir)
    assert reason == f"too large: more than {4 << 20} bytes decoded"


@pytest.mark.parametrize(
    ("encoding", "reason"),
    [
        ("br", "unsupported Content-Encoding: 'br'"),
        ("gzip, br", "stacked Content-Encoding refused: 'gzip, br'"),
        ("deflate", "unsupported Content-Encoding: 'deflate'"),
    ],
)
def test_unknown_encodings_are_refused(
    site: Loopback, good: Path, wahapedia_dir: Path, encoding: str, reason: str
) -> None:
    site.serve(f"/w/{TARGET}", Reply(200, b"\x00" * 64, {"Content-Encoding": encoding}))
    assert _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir) == reason


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("garbage", r"invalid gzip data: Error -3 .*"), ("cut", r"invalid gzip data: the stream ends inside a member")],
)
def test_invalid_gzip_fails_that_file_only(
    site: Loopback, good: Path, wahapedia_dir: Path, kind: str, reason: str
) -> None:
    """Garbage after a gzip header; the real table gzipped and cut in half (its content looks right)."""
    packed = gzipped((wahapedia_dir / TARGET).read_bytes())
    body = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xffnot deflate" if kind == "garbage" else packed[: len(packed) // 2]
    site.serve(f"/w/{TARGET}", Reply(200, body, {"Content-Encoding": "gzip"}))
    assert re.fullmatch(reason, _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir))


# -- redirects -------------------------------------------------------------------------


def test_a_redirect_to_another_origin_is_refused(site: Loopback, good: Path, wahapedia_dir: Path) -> None:
    with Loopback() as evil:
        evil.serve("/x", Reply(200, b"id|name|\n1|pwned by evil|\n"[:24]))
        site.serve(f"/w/{TARGET}", Reply(302, headers={"Location": evil.url("/x")}))
        reason = _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir)
        assert reason == f"redirect to another origin refused: {evil.url('/x')}"
        assert evil.seen == []


@pytest.mark.parametrize("loop", ["self", "pair"])
def test_a_redirect_loop_fails_that_file_only(site: Loopback, good: Path, wahapedia_dir: Path, loop: str) -> None:
    if loop == "self":
        site.serve(f"/w/{TARGET}", Reply(301, headers={"Location": f"/w/{TARGET}"}))
    else:
        site.serve(f"/w/{TARGET}", Reply(302, headers={"Location": "/w/elsewhere"}))
        site.serve("/w/elsewhere", Reply(307, headers={"Location": TARGET}))
    reason = _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir)
    assert reason == "too many redirects (more than 5)"
    assert len(site.hits(f"/w/{TARGET}")) == (6 if loop == "self" else 3)


# -- bodies that are not the table ------------------------------------------------------


def _bad_bodies(wahapedia_dir: Path) -> dict[str, tuple[bytes, str]]:
    real = (wahapedia_dir / TARGET).read_bytes()
    cut = real[:4000]
    assert not cut.endswith(b"|\n")  # the cut falls inside a row
    return {
        "html": (
            b"<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head><body></body></html>\n",
            "refused content: an HTML/XML page, not a Wahapedia table",
        ),
        "empty": (b"", "refused content: empty body"),
        "24-bytes": (real[:24], "refused content: Datasheets.csv: header row lacks source_id, role"),
        "header-only": (_real_header(wahapedia_dir), "refused content: Datasheets.csv: a header row but no data rows"),
        "cut-in-a-row": (cut, "refused content: Datasheets.csv: the last row does not end with '|' (cut short)"),
        "other-table": (
            (wahapedia_dir / "Factions.csv").read_bytes(),
            "refused content: Datasheets.csv: header row lacks faction_id, source_id, role",
        ),
        "latin-1": (real.replace("’".encode(), b"\x92", 1), "refused content: not UTF-8 (byte {})"),
    }


@pytest.mark.parametrize("kind", ["html", "empty", "24-bytes", "header-only", "cut-in-a-row", "other-table", "latin-1"])
def test_a_200_that_is_not_the_table_never_replaces_a_good_copy(
    site: Loopback, good: Path, wahapedia_dir: Path, kind: str
) -> None:
    body, reason = _bad_bodies(wahapedia_dir)[kind]
    if kind == "latin-1":
        reason = reason.format(body.index(b"\x92"))
    site.serve(f"/w/{TARGET}", Reply(200, body))
    assert _assert_only_target_failed(_fetch(site, good), good, wahapedia_dir) == reason
    assert len(site.hits(f"/w/{TARGET}")) == 1  # refused content is not retried


# -- time ------------------------------------------------------------------------------


def test_a_slow_drip_is_cut_by_the_per_file_deadline(site: Loopback, good: Path, wahapedia_dir: Path) -> None:
    """One byte every 0.2 s would take 40 s; each read is quick, so only the overall deadline stops it."""
    site.serve(f"/w/{TARGET}", Reply(200, (wahapedia_dir / TARGET).read_bytes()[:200], drip=0.2))
    reason = _assert_only_target_failed(_fetch(site, good, deadline=1.0), good, wahapedia_dir)
    assert reason == "deadline of 1 s passed while receiving the body"


def _in_an_hour() -> str:
    return format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)


@pytest.mark.parametrize("retry_after", ["3600", "in an hour"])
def test_a_retry_after_beyond_the_cap_gives_the_file_up_at_once(
    site: Loopback, good: Path, wahapedia_dir: Path, retry_after: str
) -> None:
    value = _in_an_hour() if retry_after == "in an hour" else retry_after
    site.serve(f"/w/{TARGET}", Reply(429, b"slow down", {"Retry-After": value}))
    reason = _assert_only_target_failed(_fetch(site, good, retries=3), good, wahapedia_dir)
    assert re.fullmatch(r"HTTP 429: Retry-After (3600|3599) s is beyond the 30 s cap", reason)
    assert len(site.hits(f"/w/{TARGET}")) == 1


# -- the command line ------------------------------------------------------------------


def test_the_cli_exits_1_and_lists_each_failure_with_its_reason(
    site: Loopback, good: Path, wahapedia_dir: Path
) -> None:
    site.serve(f"/w/{TARGET}", Reply(200, b"<html>maintenance</html>"))
    site.serve("/w/Source.csv", Reply(302, headers={"Location": "http://127.0.0.2:9/Source.csv"}))
    script = str(Path(sys.executable).with_name("dataslate"))
    done = subprocess.run(
        [script, "fetch", "wahapedia", "--into", str(good), "--base-url", site.url("/w/")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "16 fetched, 0 unchanged (304), 2 failed" in done.stdout
    assert f"failed {TARGET}: refused content: an HTML/XML page, not a Wahapedia table" in done.stdout
    assert "failed Source.csv: redirect to another origin refused: http://127.0.0.2:9/Source.csv" in done.stdout
    assert (good / TARGET).read_bytes() == (wahapedia_dir / TARGET).read_bytes()
    assert "Traceback" not in done.stderr


# -- the BSData archive (`fetch bsdata`) --------------------------------------------------------

ARCHIVES = "/BSData/wh40k-10e/archive/"
BSDATA_FAST = replace(DEFAULT_LIMITS, timeout=5.0, retries=1, backoff=0.001, deadline=20.0)
CATALOGUE = b'<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="x" name="Evil"/>'


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def bsdata(site: Loopback, bsdata_dir: Path, tmp_path: Path) -> Path:
    """raw/bsdata already holding a good fetch of the three test catalogues."""
    site.answer(f"{ARCHIVES}main.tar.gz", static(tar_gz(repo_members(bsdata_dir))))
    into = tmp_path / "raw" / "bsdata"
    assert _fetch_bsdata(site, into).ok
    return into


def _fetch_bsdata(site: Loopback, into: Path, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS) -> BsdataReport:
    return fetch_bsdata(into, base_url=site.url(ARCHIVES), limits=BSDATA_FAST, archive_limits=limits)


def _assert_refused(
    site: Loopback, into: Path, members: list[Member], limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
) -> str:
    """The archive is refused: the folder is as it was, nothing was written next to or above it."""
    before = _snapshot(into)
    site.answer(f"{ARCHIVES}main.tar.gz", static(tar_gz(members)))
    report = _fetch_bsdata(site, into, limits)
    assert report.status == "failed" and report.files == {}
    assert _snapshot(into) == before
    assert sorted(p.name for p in into.parent.iterdir()) == ["bsdata"]
    assert sorted(p.name for p in into.parent.parent.iterdir()) == ["raw"]
    return report.error or ""


HOSTILE: dict[str, tuple[Member, str]] = {
    "dot-dot": (Member("../evil.cat", CATALOGUE), "unsafe member path refused: '../evil.cat'"),
    "dot-dot-inside": (
        Member(f"{TOP}/../../evil.cat", CATALOGUE),
        f"unsafe member path refused: '{TOP}/../../evil.cat'",
    ),
    "backslash-dot-dot": (Member("..\\evil.cat", CATALOGUE), "unsafe member path refused: '..\\\\evil.cat'"),
    "absolute": (Member("/tmp/evil.cat", CATALOGUE), "unsafe member path refused: '/tmp/evil.cat'"),
    "drive": (Member("C:/evil.cat", CATALOGUE), "unsafe member path refused: 'C:/evil.cat'"),
    "symlink": (
        Member(f"{TOP}/shadow.cat", type=tarfile.SYMTYPE, linkname="/etc/shadow"),
        f"symlink member refused: '{TOP}/shadow.cat'",
    ),
    "symlink-not-a-catalogue": (
        Member(f"{TOP}/docs", type=tarfile.SYMTYPE, linkname="/"),
        f"symlink member refused: '{TOP}/docs'",
    ),
    "hard-link": (
        Member(f"{TOP}/copy.cat", type=tarfile.LNKTYPE, linkname="/etc/passwd"),
        f"hard link member refused: '{TOP}/copy.cat'",
    ),
    "fifo": (Member(f"{TOP}/pipe.cat", type=tarfile.FIFOTYPE), f"FIFO member refused: '{TOP}/pipe.cat'"),
    "char-device": (Member(f"{TOP}/zero.cat", type=tarfile.CHRTYPE), f"device member refused: '{TOP}/zero.cat'"),
    "block-device": (Member(f"{TOP}/sda.cat", type=tarfile.BLKTYPE), f"device member refused: '{TOP}/sda.cat'"),
    "same-name-twice": (
        Member(f"{TOP}/old/Library - Titans.cat", CATALOGUE),
        "two catalogues named 'Library - Titans.cat'",
    ),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_member_refuses_the_whole_archive(bsdata: Path, site: Loopback, bsdata_dir: Path, kind: str) -> None:
    member, reason = HOSTILE[kind]
    assert _assert_refused(site, bsdata, [*repo_members(bsdata_dir), member]) == reason


def test_a_non_catalogue_member_is_skipped_not_extracted(bsdata: Path, site: Loopback, bsdata_dir: Path) -> None:
    members = [*repo_members(bsdata_dir), Member(f"{TOP}/run.sh", b"#!/bin/sh\nrm -rf /\n")]
    site.answer(f"{ARCHIVES}main.tar.gz", static(tar_gz(members)))
    report = _fetch_bsdata(site, bsdata)
    assert report.status == "fetched" and report.skipped == 3
    assert not (bsdata / "run.sh").exists()
    assert f"{TOP}/run.sh" in json.loads((bsdata / "manifest.json").read_text())["skipped_members"]


def test_a_gzip_bomb_in_a_skipped_member_stops_at_the_inflate_cap(
    bsdata: Path, site: Loopback, bsdata_dir: Path
) -> None:
    bomb = Member(f"{TOP}/zeros.bin", bytes(64 << 20))  # ~64 KB compressed
    reason = _assert_refused(site, bsdata, [bomb, *repo_members(bsdata_dir)], ArchiveLimits(max_inflated=8 << 20))
    assert reason == f"the archive inflates to more than {8 << 20} bytes"


def test_a_catalogue_over_the_extracted_cap_is_refused_before_it_is_written(
    bsdata: Path, site: Loopback, bsdata_dir: Path
) -> None:
    bomb = Member(f"{TOP}/Huge.cat", bytes(32 << 20))
    reason = _assert_refused(site, bsdata, [*repo_members(bsdata_dir), bomb], ArchiveLimits(max_extracted=16 << 20))
    assert reason == f"the catalogues exceed {16 << 20} bytes"


def test_too_many_members_refuse_the_archive(bsdata: Path, site: Loopback, bsdata_dir: Path) -> None:
    folders = [Member(f"{TOP}/d{n}", type=tarfile.DIRTYPE) for n in range(30)]
    reason = _assert_refused(site, bsdata, [*repo_members(bsdata_dir), *folders], ArchiveLimits(max_members=20))
    assert reason == "more than 20 members"


def test_a_huge_pax_header_is_refused_before_tarfile_reads_it(bsdata: Path, site: Loopback, bsdata_dir: Path) -> None:
    member = Member(f"{TOP}/Padded.cat", CATALOGUE, pax={"comment": "x" * (4 << 20)})
    reason = _assert_refused(site, bsdata, [*repo_members(bsdata_dir), member])
    assert re.fullmatch(r"an extended tar header of \d{7} bytes", reason)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xffgarbage", r"not a valid \.tar\.gz: invalid gzip data: Error -3 .*"),
        (gzipped(b"not a tar file at all" * 100), r"not a valid tar archive: .*"),
    ],
    ids=["bad-gzip", "not-tar"],
)
def test_an_archive_that_is_not_a_tar_gz_is_refused(bsdata: Path, site: Loopback, body: bytes, reason: str) -> None:
    before = _snapshot(bsdata)
    site.answer(f"{ARCHIVES}main.tar.gz", static(body))
    report = _fetch_bsdata(site, bsdata)
    assert report.status == "failed" and re.fullmatch(reason, report.error or ""), report.error
    assert _snapshot(bsdata) == before
