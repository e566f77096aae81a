"""`fetch_wahapedia`: download the Wahapedia export's known files, politely and within bounds; a failed file
keeps its previous copy and is reported (docs/fetch.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import quote

import httpx

from pipeline import config
from pipeline.errors import FetchError
from pipeline.fetch.files import MANIFEST_FILE, load_state, local_sha256, save_state, write_json
from pipeline.fetch.http import Limits, Outcome, check_base_url, download
from pipeline.fetch.wahapedia_check import WahapediaTableCheck

USER_AGENT = "dataslate-fetch/0.1 (+polite scraper of the Wahapedia data export)"
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 1.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_DEADLINE = 60.0
DEFAULT_MAX_RETRY_AFTER = 30.0


@dataclass(frozen=True)
class FileResult:
    """One file of a fetch: what happened and what the folder now holds."""

    name: str
    url: str
    outcome: Outcome
    sha256: str | None = None

    @property
    def status(self) -> str:
        return self.outcome.status


@dataclass
class FetchReport:
    base_url: str
    into: Path
    results: list[FileResult] = field(default_factory=list)

    def _named(self, status: str) -> list[str]:
        return [r.name for r in self.results if r.status == status]

    @property
    def fetched(self) -> list[str]:
        return self._named("fetched")

    @property
    def not_modified(self) -> list[str]:
        return self._named("not_modified")

    @property
    def failed(self) -> dict[str, str]:
        return {r.name: r.outcome.error or "failed" for r in self.results if r.status == "failed"}

    @property
    def ok(self) -> bool:
        return not self.failed

    def result(self, name: str) -> FileResult:
        return next(r for r in self.results if r.name == name)

    def summary(self) -> str:
        """One line per outcome, for the command line."""
        lines = [
            f"{len(self.fetched)} fetched, {len(self.not_modified)} unchanged (304), "
            f"{len(self.failed)} failed -> {self.into}"
        ]
        lines += [f"  failed {name}: {error}" for name, error in sorted(self.failed.items())]
        return "\n".join(lines)


def file_url(base_url: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/{quote(name)}"


def _check_files(files: Iterable[str]) -> list[str]:
    names = list(files)
    unknown = [n for n in names if n not in config.WAHAPEDIA_FILES]
    if unknown:
        raise FetchError(f"not a known Wahapedia export file: {', '.join(unknown)}")
    return names


def _validators(outcome: Outcome, previous: dict[str, str]) -> dict[str, str]:
    """Validators to store: the new ones after a fetch, the old ones otherwise."""
    if outcome.status != "fetched":
        return previous
    return {k: v for k, v in (("etag", outcome.etag), ("last_modified", outcome.last_modified)) if v}


def _manifest(report: FetchReport) -> dict[str, object]:
    files = {
        r.name: {"url": r.url, "sha256": r.sha256, "status": r.status, "attempts": r.outcome.attempts,
                 **({"error": r.outcome.error} if r.outcome.error else {})}
        for r in report.results
    }  # fmt: skip
    return {"base_url": report.base_url, "files": files}


def fetch_wahapedia(
    base_url: str,
    into: Path,
    *,
    files: Iterable[str] = config.WAHAPEDIA_FILES,
    timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    backoff: float = DEFAULT_BACKOFF,
    deadline: float = DEFAULT_DEADLINE,
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
    pause: float = 0.0,
    client: httpx.Client | None = None,
) -> FetchReport:
    """Fetch the known export files from `base_url` into `into`; see the module doc for failures.

    Writes `into/manifest.json` (sha256 of every file the folder holds, per status)
    and the validator sidecar `into/.fetch-state.json`.
    """
    names, base_url = _check_files(files), check_base_url(base_url)
    into = Path(into)
    try:
        into.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FetchError(f"cannot create the target folder: {error}", path=into) from error
    limits = Limits(timeout, retries, backoff, max_bytes, deadline, max_retry_after)
    state, report = load_state(into), FetchReport(base_url=base_url, into=into)
    own_client = client is None
    http = client or httpx.Client(headers={"User-Agent": USER_AGENT})
    try:
        for index, name in enumerate(names):
            if index and pause:
                time.sleep(pause)
            url, target = file_url(base_url, name), into / name
            validators = state.get(name, {}) if target.is_file() else {}
            outcome = download(http, url, target, validators, limits, partial(WahapediaTableCheck, name))
            state[name] = _validators(outcome, state.get(name, {}))
            report.results.append(FileResult(name, url, outcome, local_sha256(into / name)))
    finally:
        if own_client:
            http.close()
        save_state(into, {k: v for k, v in state.items() if v})
        write_json(into / MANIFEST_FILE, _manifest(report))
    return report
