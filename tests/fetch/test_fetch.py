"""The Wahapedia scraper against a real HTTP server on 127.0.0.1 serving the real export.

The server (http.server in a thread) misbehaves on request, per file: 500s,
slow answers, truncated bodies (Content-Length larger than the body), dropped
connections, 404s; and it honours If-None-Match with 304s.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypedDict

import pytest

from pipeline import config
from pipeline.errors import FetchError
from pipeline.fetch import fetch_wahapedia
from pipeline.fetch.files import MANIFEST_FILE, STATE_FILE
from pipeline.ids import file_sha256
from tests.fetch.loopback import Loopback, QuietServer, Reply, etag_of, static

LAST_MODIFIED = "Wed, 09 Jul 2025 00:00:00 GMT"


class Fast(TypedDict):
    """Short timeouts and back-off, so failing fetches fail within the test's time."""

    timeout: float
    retries: int
    backoff: float


FAST: Fast = {"timeout": 2.0, "retries": 2, "backoff": 0.001}


@dataclass
class Behaviour:
    """How the test server treats each file; `n` = for the first n requests (-1 = always)."""

    folder: Path
    errors: dict[str, int] = field(default_factory=dict)
    slow: dict[str, tuple[int, float]] = field(default_factory=dict)
    truncated: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    requests: Counter[str] = field(default_factory=Counter)
    conditional: Counter[str] = field(default_factory=Counter)

    def applies(self, rule: dict[str, int], name: str) -> bool:
        count = rule.get(name, 0)
        return count == -1 or self.requests[name] <= count


def _handler(behaviour: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            name = self.path.lstrip("/").split("/")[-1]
            behaviour.requests[name] += 1
            try:
                self._answer(name)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _answer(self, name: str) -> None:
            count, delay = behaviour.slow.get(name, (0, 0.0))
            if count == -1 or behaviour.requests[name] <= count:
                time.sleep(delay)
            if behaviour.applies(behaviour.dropped, name):
                self.close_connection = True
                return
            if behaviour.applies(behaviour.errors, name):
                self._send(500, b"boom")
                return
            path = behaviour.folder / name
            if name in behaviour.missing or not path.is_file():
                self._send(404, b"not found")
                return
            body = path.read_bytes()
            etag = f'"{hashlib.sha256(body).hexdigest()}"'
            if self.headers.get("If-None-Match"):
                behaviour.conditional[name] += 1
                if self.headers["If-None-Match"] == etag:
                    self._send(304, b"", etag=etag)
                    return
            if behaviour.applies(behaviour.truncated, name):
                self._send(200, body[: len(body) // 2], etag=etag, length=len(body))
                self.close_connection = True
                return
            self._send(200, body, etag=etag)

        def _send(self, code: int, body: bytes, etag: str | None = None, length: int | None = None) -> None:
            self.send_response(code)
            if etag:
                self.send_header("ETag", etag)
                self.send_header("Last-Modified", LAST_MODIFIED)
            if code != 304:
                self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def server(wahapedia_dir: Path) -> Iterator[tuple[str, Behaviour]]:
    behaviour = Behaviour(folder=wahapedia_dir)
    httpd = QuietServer(("127.0.0.1", 0), _handler(behaviour))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/wh40k10ed/", behaviour
    finally:
        httpd.shutdown()
        httpd.server_close()


SMALL = ("Factions.csv", "Source.csv", "Abilities.csv")


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".part")]


def test_fetches_every_known_file_with_a_sha256_manifest(
    server: tuple[str, Behaviour], wahapedia_dir: Path, tmp_path: Path
) -> None:
    base_url, behaviour = server
    report = fetch_wahapedia(base_url, tmp_path, **FAST)
    assert report.ok and sorted(report.fetched) == sorted(config.WAHAPEDIA_FILES)
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["base_url"] == base_url
    for name in config.WAHAPEDIA_FILES:
        assert (tmp_path / name).read_bytes() == (wahapedia_dir / name).read_bytes()
        entry = manifest["files"][name]
        assert entry["sha256"] == file_sha256(str(wahapedia_dir / name))
        assert (entry["status"], entry["attempts"]) == ("fetched", 1)
    assert behaviour.requests["Datasheets.csv"] == 1
    assert _leftovers(tmp_path) == []


def test_second_run_sends_validators_and_reuses_local_copies_on_304(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base_url, behaviour = server
    fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    before = {name: (tmp_path / name).stat().st_mtime_ns for name in SMALL}
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert state["Factions.csv"]["last_modified"] == LAST_MODIFIED
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    assert report.ok and sorted(report.not_modified) == sorted(SMALL)
    assert {name: behaviour.conditional[name] for name in SMALL} == dict.fromkeys(SMALL, 1)
    assert {name: (tmp_path / name).stat().st_mtime_ns for name in SMALL} == before
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["files"]["Source.csv"]["status"] == "not_modified"
    assert manifest["files"]["Source.csv"]["sha256"] == file_sha256(str(tmp_path / "Source.csv"))


def test_a_deleted_local_copy_is_fetched_again_without_validators(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base_url, behaviour = server
    fetch_wahapedia(base_url, tmp_path, files=["Factions.csv"], **FAST)
    (tmp_path / "Factions.csv").unlink()
    report = fetch_wahapedia(base_url, tmp_path, files=["Factions.csv"], **FAST)
    assert report.fetched == ["Factions.csv"] and behaviour.conditional["Factions.csv"] == 0


def test_500s_are_retried_with_backoff_until_success(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base_url, behaviour = server
    behaviour.errors["Factions.csv"] = 2
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    assert report.ok
    assert report.result("Factions.csv").outcome.attempts == 3
    assert behaviour.requests["Factions.csv"] == 3 and behaviour.requests["Source.csv"] == 1


def test_persistent_500s_fail_after_bounded_retries_and_keep_the_old_copy(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base_url, behaviour = server
    fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    good = (tmp_path / "Source.csv").read_bytes()
    behaviour.requests.clear()
    behaviour.errors["Source.csv"] = -1
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    assert report.failed == {"Source.csv": "HTTP 500"}
    assert behaviour.requests["Source.csv"] == 3  # 1 + retries=2
    assert (tmp_path / "Source.csv").read_bytes() == good
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    entry = manifest["files"]["Source.csv"]
    assert (entry["status"], entry["error"], entry["sha256"]) == (
        "failed",
        "HTTP 500",
        hashlib.sha256(good).hexdigest(),
    )


def test_slow_responses_beyond_the_timeout_are_retried_then_reported(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base_url, behaviour = server
    behaviour.slow["Factions.csv"] = (1, 1.0)  # first answer too slow, then fine
    behaviour.slow["Source.csv"] = (-1, 1.0)  # always too slow
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, timeout=0.25, retries=1, backoff=0.001)
    assert report.result("Factions.csv").status == "fetched"
    assert report.result("Factions.csv").outcome.attempts == 2
    assert report.failed["Source.csv"].startswith("ReadTimeout")
    assert not (tmp_path / "Source.csv").exists() and report.result("Abilities.csv").status == "fetched"


def test_truncated_bodies_are_retried_and_never_replace_a_good_copy(
    server: tuple[str, Behaviour], wahapedia_dir: Path, tmp_path: Path
) -> None:
    base_url, behaviour = server
    (tmp_path / "Source.csv").write_bytes(b"previous good copy\n")
    behaviour.truncated["Source.csv"] = -1
    behaviour.truncated["Factions.csv"] = 1
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    assert report.failed["Source.csv"].startswith("RemoteProtocolError")
    assert behaviour.requests["Source.csv"] == 3
    assert (tmp_path / "Source.csv").read_bytes() == b"previous good copy\n"
    assert (tmp_path / "Factions.csv").read_bytes() == (wahapedia_dir / "Factions.csv").read_bytes()
    assert report.result("Factions.csv").outcome.attempts == 2
    assert _leftovers(tmp_path) == []


def test_dropped_connections_are_retried(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base_url, behaviour = server
    behaviour.dropped["Abilities.csv"] = 1
    report = fetch_wahapedia(base_url, tmp_path, files=SMALL, **FAST)
    assert report.ok and report.result("Abilities.csv").outcome.attempts == 2


def test_a_404_fails_that_file_only_without_retrying(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base_url, behaviour = server
    behaviour.missing.add("Enhancements.csv")
    report = fetch_wahapedia(base_url, tmp_path, files=[*SMALL, "Enhancements.csv"], **FAST)
    assert report.failed == {"Enhancements.csv": "HTTP 404"}
    assert behaviour.requests["Enhancements.csv"] == 1
    assert sorted(report.fetched) == sorted(SMALL)
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["files"]["Enhancements.csv"]["sha256"] is None


def test_files_over_the_size_limit_are_refused(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base_url, behaviour = server
    report = fetch_wahapedia(base_url, tmp_path, files=["Factions.csv", "Datasheets.csv"], max_bytes=64_000, **FAST)
    assert report.fetched == ["Factions.csv"]
    assert report.failed["Datasheets.csv"].startswith("too large")
    assert behaviour.requests["Datasheets.csv"] == 1
    assert not (tmp_path / "Datasheets.csv").exists() and _leftovers(tmp_path) == []


def test_only_known_files_are_ever_requested(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base_url, behaviour = server
    with pytest.raises(FetchError, match=r"not a known Wahapedia export file: secrets\.txt"):
        fetch_wahapedia(base_url, tmp_path, files=["Factions.csv", "secrets.txt"], **FAST)
    assert sum(behaviour.requests.values()) == 0


def test_the_cli_fetches_into_a_folder_that_dataslate_parse_reads(
    server: tuple[str, Behaviour], wahapedia_dir: Path, tmp_path: Path
) -> None:
    """`dataslate fetch wahapedia` end to end: real server, real console script, then the folder parses."""
    base_url, _ = server
    into = tmp_path / "raw" / "wahapedia"
    script = str(Path(sys.executable).with_name("dataslate"))
    fetched = subprocess.run(
        [script, "fetch", "wahapedia", "--into", str(into), "--base-url", base_url],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert fetched.returncode == 0, fetched.stderr
    assert "18 fetched, 0 unchanged (304), 0 failed" in fetched.stdout
    assert (into / "Datasheets.csv").read_bytes() == (wahapedia_dir / "Datasheets.csv").read_bytes()
    again = subprocess.run(
        [script, "fetch", "wahapedia", "--into", str(into), "--base-url", base_url],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "0 fetched, 18 unchanged (304), 0 failed" in again.stdout


# -- redirects and Retry-After (scripted server: tests/fetch/loopback.py) ----------------------


@pytest.fixture
def site(wahapedia_dir: Path) -> Iterator[Loopback]:
    """Serves the real export under /w/ (each file with an ETag), ready to be scripted per path."""
    with Loopback() as server:
        for name in config.WAHAPEDIA_FILES:
            server.answer(f"/w/{name}", static((wahapedia_dir / name).read_bytes()))
        yield server


@pytest.mark.parametrize(
    ("code", "location"),
    [
        (301, "/w/moved/Source.csv"),
        (302, "moved/Source.csv"),
        (307, "{origin}/w/moved/Source.csv"),
        (308, "../w/moved/Source.csv"),
    ],
)
def test_same_origin_redirects_are_followed(
    site: Loopback, wahapedia_dir: Path, tmp_path: Path, code: int, location: str
) -> None:
    site.serve("/w/Source.csv", Reply(code, headers={"Location": location.format(origin=site.origin)}))
    site.answer("/w/moved/Source.csv", static((wahapedia_dir / "Source.csv").read_bytes()))
    report = fetch_wahapedia(site.url("/w/"), tmp_path, files=["Source.csv"], **FAST)
    assert report.ok and report.result("Source.csv").outcome.attempts == 1
    assert (tmp_path / "Source.csv").read_bytes() == (wahapedia_dir / "Source.csv").read_bytes()
    assert [s.path for s in site.seen] == ["/w/Source.csv", "/w/moved/Source.csv"]


def test_a_redirect_to_another_port_is_another_origin(site: Loopback, tmp_path: Path) -> None:
    with Loopback() as other:
        site.serve("/w/Source.csv", Reply(302, headers={"Location": other.url("/w/Source.csv")}))
        report = fetch_wahapedia(site.url("/w/"), tmp_path, files=["Source.csv", "Factions.csv"], **FAST)
        assert report.failed == {"Source.csv": f"redirect to another origin refused: {other.url('/w/Source.csv')}"}
        assert report.fetched == ["Factions.csv"] and other.seen == []


def _http_date(seconds_ahead: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_ahead), usegmt=True)


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_retry_after_is_honoured_below_the_cap(site: Loopback, wahapedia_dir: Path, tmp_path: Path, form: str) -> None:
    value = "1" if form == "seconds" else _http_date(2.0)  # an HTTP-date has whole seconds: waits 1 to 2 s
    body = (wahapedia_dir / "Source.csv").read_bytes()
    site.serve("/w/Source.csv", Reply(429, b"slow down", {"Retry-After": value}), Reply(200, body))
    report = fetch_wahapedia(site.url("/w/"), tmp_path, files=["Source.csv"], **FAST)
    assert report.ok and report.result("Source.csv").outcome.attempts == 2
    first, second = site.hits("/w/Source.csv")
    assert second.at - first.at >= 0.95  # waited for the server, not the 1 ms backoff


def test_a_wait_that_would_pass_the_deadline_gives_up_at_once(site: Loopback, tmp_path: Path) -> None:
    site.serve("/w/Source.csv", Reply(503, b"busy", {"Retry-After": "20"}))
    report = fetch_wahapedia(site.url("/w/"), tmp_path, files=["Source.csv"], deadline=5.0, **FAST)
    assert report.failed == {"Source.csv": "HTTP 503: the next attempt (in 20.0 s) would pass the 5 s deadline"}
    assert len(site.hits("/w/Source.csv")) == 1


def test_validators_are_sent_only_with_a_local_copy_and_a_304_keeps_it(
    site: Loopback, wahapedia_dir: Path, tmp_path: Path
) -> None:
    fetch_wahapedia(site.url("/w/"), tmp_path, files=["Factions.csv"], **FAST)
    again = fetch_wahapedia(site.url("/w/"), tmp_path, files=["Factions.csv"], **FAST)
    first, second = site.hits("/w/Factions.csv")
    assert "if-none-match" not in first.headers and second.headers["if-none-match"] == etag_of(
        (wahapedia_dir / "Factions.csv").read_bytes()
    )
    assert again.not_modified == ["Factions.csv"]
    assert first.headers["accept-encoding"] == "gzip"


@pytest.mark.parametrize("base_url", ["wahapedia.ru/wh40k10ed/", "ftp://127.0.0.1/w/", "file:///etc/", "http:///w/"])
def test_a_base_url_that_is_not_http_is_refused_before_any_request(tmp_path: Path, base_url: str) -> None:
    with pytest.raises(FetchError, match="not a usable base URL"):
        fetch_wahapedia(base_url, tmp_path / "w", files=["Factions.csv"], **FAST)
    assert not (tmp_path / "w").exists()
