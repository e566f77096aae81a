"""`fetch bsdata` end to end: an archive built from the shared catalogues, served on 127.0.0.1.

Attacks on the archive itself (links, `..`, bombs) are in tests/security/test_fetch_attacks.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pipeline.errors import FetchError
from pipeline.fetch import BsdataReport, fetch_bsdata
from pipeline.fetch.bsdata import DEFAULT_LIMITS
from pipeline.sources.registry import default_inputs
from tests.fetch.archives import CATALOGUES, DATASHEETS, TOP, Member, repo_members, tar_gz
from tests.fetch.loopback import Loopback, Reply, etag_of, static

ARCHIVES = "/BSData/wh40k-10e/archive/"
FAST = replace(DEFAULT_LIMITS, timeout=5.0, retries=1, backoff=0.001, deadline=20.0)


@pytest.fixture
def site() -> Iterator[Loopback]:
    with Loopback() as server:
        yield server


@pytest.fixture
def archive(bsdata_dir: Path) -> bytes:
    return tar_gz(repo_members(bsdata_dir))


def _fetch(site: Loopback, into: Path, ref: str = "main", **limits: Any) -> BsdataReport:
    return fetch_bsdata(into, ref=ref, base_url=site.url(ARCHIVES), limits=replace(FAST, **limits))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_fetches_the_catalogues_of_a_ref_with_a_manifest(
    site: Loopback, archive: bytes, bsdata_dir: Path, tmp_path: Path
) -> None:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    into = tmp_path / "raw" / "bsdata"
    report = _fetch(site, into)
    assert (report.status, report.error, report.datasheets, report.skipped) == ("fetched", None, DATASHEETS, 2)
    assert sorted(p.name for p in into.iterdir()) == sorted([*CATALOGUES, "manifest.json"])
    for name in CATALOGUES:
        assert (into / name).read_bytes() == (bsdata_dir / name).read_bytes()
    manifest = json.loads((into / "manifest.json").read_text())
    assert manifest["url"] == site.url(f"{ARCHIVES}main.tar.gz") and manifest["ref"] == "main"
    assert manifest["archive_sha256"] == hashlib.sha256(archive).hexdigest()
    assert manifest["etag"] == etag_of(archive) and manifest["datasheets"] == DATASHEETS
    assert manifest["files"] == {
        n: {"sha256": _sha(bsdata_dir / n), "size": (bsdata_dir / n).stat().st_size} for n in CATALOGUES
    }
    assert manifest["skipped_members"] == [f"{TOP}/.github/workflows/ci.yml", f"{TOP}/README.md"]
    assert report.files == {n: _sha(bsdata_dir / n) for n in CATALOGUES}
    assert sorted(p.name for p in into.parent.iterdir()) == ["bsdata"]  # no staging or download left


def test_an_unchanged_archive_costs_a_304_and_keeps_the_folder(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    into = tmp_path / "bsdata"
    first = _fetch(site, into)
    mtimes = {p.name: p.stat().st_mtime_ns for p in into.iterdir()}
    again = _fetch(site, into)
    assert (again.status, again.files, again.datasheets) == ("not_modified", first.files, DATASHEETS)
    assert again.summary() == f"unchanged (304): kept 3 catalogues in {into}"
    assert {p.name: p.stat().st_mtime_ns for p in into.iterdir()} == mtimes
    assert site.hits(f"{ARCHIVES}main.tar.gz")[1].headers["if-none-match"] == etag_of(archive)


def test_a_damaged_local_copy_is_fetched_again_without_validators(
    site: Loopback, archive: bytes, bsdata_dir: Path, tmp_path: Path
) -> None:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    into = tmp_path / "bsdata"
    _fetch(site, into)
    (into / CATALOGUES[1]).write_bytes(b"edited by hand")
    report = _fetch(site, into)
    assert report.status == "fetched" and "if-none-match" not in site.hits(f"{ARCHIVES}main.tar.gz")[1].headers
    assert (into / CATALOGUES[1]).read_bytes() == (bsdata_dir / CATALOGUES[1]).read_bytes()


def test_the_ref_names_the_archive_and_a_new_ref_is_not_conditional(
    site: Loopback, archive: bytes, tmp_path: Path
) -> None:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    site.answer(f"{ARCHIVES}v10.3.0.tar.gz", static(archive))
    into = tmp_path / "bsdata"
    _fetch(site, into)
    report = _fetch(site, into, ref="v10.3.0")
    assert report.status == "fetched" and report.url == site.url(f"{ARCHIVES}v10.3.0.tar.gz")
    assert "if-none-match" not in site.hits(f"{ARCHIVES}v10.3.0.tar.gz")[0].headers
    assert json.loads((into / "manifest.json").read_text())["ref"] == "v10.3.0"


@pytest.mark.parametrize("ref", ["../main", "main/", "-rf", "a b", "a//b", "x.lock", ""])
def test_refs_that_are_not_safe_in_a_url_are_refused_before_any_request(
    site: Loopback, tmp_path: Path, ref: str
) -> None:
    with pytest.raises(FetchError, match="not a usable git ref"):
        _fetch(site, tmp_path / "bsdata", ref=ref)
    assert site.seen == []


def _good_folder(site: Loopback, archive: bytes, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    into = tmp_path / "bsdata"
    assert _fetch(site, into).ok
    return into, _snapshot(into)


UNREADABLE = r"1 catalogue\(s\) unreadable, e.g. bsdata:"


@pytest.mark.parametrize(
    ("catalogues", "reason"),
    [
        ({"Broken.cat": b"<catalogue><unclosed>"}, UNREADABLE + r"Broken.cat: malformed XML: .*"),
        ({"Notes.cat": b"<notes/>"}, UNREADABLE + r"Notes.cat: not a BattleScribe catalogue: root <notes>"),
        ({"Chaos - Titanicus Traitoris.cat": None}, r"the catalogues hold no datasheet"),  # its units: in a library
        ({}, r"no \.cat/\.gst file in the archive"),
    ],
    ids=["malformed-xml", "not-a-catalogue", "no-datasheet", "no-catalogue"],
)
def test_an_archive_that_does_not_parse_keeps_the_old_folder(
    site: Loopback, archive: bytes, bsdata_dir: Path, tmp_path: Path, catalogues: dict[str, bytes | None], reason: str
) -> None:
    into, before = _good_folder(site, archive, tmp_path)
    members = [Member(TOP, type=b"5"), Member(f"{TOP}/README.md", b"readme")]
    for name, data in catalogues.items():
        members.append(Member(f"{TOP}/{name}", (bsdata_dir / name).read_bytes() if data is None else data))
    if "Broken.cat" in catalogues or "Notes.cat" in catalogues:
        members += repo_members(bsdata_dir)[4:]  # the good catalogues too: one bad file is enough
    site.answer(f"{ARCHIVES}main.tar.gz", static(tar_gz(members)))
    report = _fetch(site, into)
    assert report.status == "failed" and re.fullmatch(reason, report.error or ""), report.error
    assert report.summary() == f"failed: {report.error} ({into} left as it was)"
    assert _snapshot(into) == before
    assert sorted(p.name for p in into.parent.iterdir()) == ["bsdata"]


def test_a_failed_download_keeps_the_old_folder(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    into, before = _good_folder(site, archive, tmp_path)
    site.serve(f"{ARCHIVES}main.tar.gz", Reply(500, b"boom"))
    report = _fetch(site, into)
    assert (report.status, report.error, report.attempts) == ("failed", "HTTP 500", 2)
    assert _snapshot(into) == before


def test_an_html_page_is_refused_as_soon_as_it_starts(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    into, before = _good_folder(site, archive, tmp_path)
    site.serve(f"{ARCHIVES}main.tar.gz", Reply(200, b"<!DOCTYPE html><html>rate limited</html>"))
    report = _fetch(site, into)
    assert report.error == "refused content: not a gzip archive (starts with b'<!')"
    assert _snapshot(into) == before


def test_retry_after_is_honoured_for_the_archive(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    site.serve(f"{ARCHIVES}main.tar.gz", Reply(503, b"busy", {"Retry-After": "1"}), Reply(200, archive))
    report = _fetch(site, tmp_path / "bsdata")
    assert (report.status, report.attempts) == ("fetched", 2)
    first, second = site.hits(f"{ARCHIVES}main.tar.gz")
    assert second.at - first.at >= 0.95


def test_an_archive_over_the_size_limit_is_refused(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    report = _fetch(site, tmp_path / "bsdata", max_bytes=len(archive) - 1)
    assert report.error == f"too large: {len(archive)} bytes > limit {len(archive) - 1}"
    assert not (tmp_path / "bsdata").exists()


def test_github_style_redirects_reach_only_the_trusted_origin(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    """github.com/…/archive/main.tar.gz answers 302 to codeload: followed only to an origin the caller trusts."""
    with Loopback() as codeload:
        codeload.answer("/BSData/wh40k-10e/tar.gz/refs/heads/main", static(archive))
        site.serve(
            f"{ARCHIVES}main.tar.gz",
            Reply(302, headers={"Location": codeload.url("/BSData/wh40k-10e/tar.gz/refs/heads/main")}),
        )
        refused = _fetch(site, tmp_path / "a")
        assert (
            refused.error
            == f"redirect to another origin refused: {codeload.url('/BSData/wh40k-10e/tar.gz/refs/heads/main')}"
        )
        trusted = fetch_bsdata(
            tmp_path / "b", base_url=site.url(ARCHIVES), limits=replace(FAST, redirect_origins=(codeload.origin,))
        )
        assert trusted.status == "fetched" and trusted.datasheets == DATASHEETS
        assert len(codeload.seen) == 1


def test_a_run_killed_between_the_two_renames_gets_its_folder_back(
    site: Loopback, archive: bytes, tmp_path: Path
) -> None:
    into, before = _good_folder(site, archive, tmp_path)
    (tmp_path / ".bsdata.old-killed").mkdir()
    into.rename(tmp_path / ".bsdata.old-killed" / "previous")
    (tmp_path / ".bsdata.staging-killed" / "catalogues").mkdir(parents=True)
    (tmp_path / ".bsdata.staging-killed" / "catalogues" / "Half.cat").write_bytes(b"<catalogue")
    assert default_inputs(tmp_path) == []  # leftovers are never inputs of `dataslate run`
    site.serve(f"{ARCHIVES}main.tar.gz", Reply(404, b"gone"))
    report = _fetch(site, into)
    assert report.error == "HTTP 404"
    assert _snapshot(into) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bsdata"]


def test_the_cli_fetches_a_folder_that_dataslate_parse_reads(site: Loopback, archive: bytes, tmp_path: Path) -> None:
    """`dataslate fetch bsdata` end to end with the console script, then `dataslate parse` on the folder."""
    site.answer(f"{ARCHIVES}main.tar.gz", static(archive))
    into = tmp_path / "raw" / "bsdata"
    script = str(Path(sys.executable).with_name("dataslate"))
    command = [script, "fetch", "bsdata", "--into", str(into), "--ref", "main", "--base-url", site.url(ARCHIVES)]
    fetched = subprocess.run(command, capture_output=True, text=True, check=False)
    assert fetched.returncode == 0, fetched.stderr
    assert f"fetched 3 catalogues ({DATASHEETS} datasheets parsed, 2 other members skipped)" in fetched.stdout
    again = subprocess.run(command, capture_output=True, text=True, check=False)
    assert again.returncode == 0 and f"unchanged (304): kept 3 catalogues in {into}" in again.stdout
    parsed = subprocess.run([script, "parse", str(into), "--json"], capture_output=True, text=True, check=False)
    assert json.loads(parsed.stdout)["datasheets"] == DATASHEETS
    site.serve(f"{ARCHIVES}main.tar.gz", Reply(200, tar_gz([Member(f"{TOP}/x.cat", b"<nope")])))
    (into / "manifest.json").unlink()  # no validators: a full download of the bad archive
    failed = subprocess.run(command, capture_output=True, text=True, check=False)
    assert failed.returncode == 1 and "failed: 1 catalogue(s) unreadable, e.g. bsdata:x.cat" in failed.stdout


def test_a_base_url_that_is_not_http_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="not a usable base URL"):
        fetch_bsdata(tmp_path / "bsdata", base_url="file:///work/shared/data/", limits=FAST)
    assert list(tmp_path.iterdir()) == []
