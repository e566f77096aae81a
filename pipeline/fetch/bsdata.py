"""`fetch_bsdata`: the BSData catalogues of one git ref, from the repository archive, into a folder.

The archive is downloaded with the politeness and limits of `pipeline.fetch.http`
(a 304 keeps the folder as it is), its catalogues are extracted safely into a
staging folder next to the target (`pipeline.fetch.archive`) and parsed; only a
set that passes the acceptance rule (`accept`, docs/fetch.md) replaces the folder,
with its sha256 manifest. Any failure leaves the previous folder untouched and is
reported in `BsdataReport.error`; `FetchError` only for a call that cannot start.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from pipeline import config
from pipeline.errors import FetchError
from pipeline.fetch.archive import ArchiveError, ArchiveLimits, Extracted, extract_catalogues
from pipeline.fetch.files import MANIFEST_FILE, fsync_dir, local_sha256, write_json
from pipeline.fetch.http import ContentRefused, Limits, Outcome, Status, check_base_url, download

USER_AGENT = "dataslate-fetch/0.1 (+polite download of the BSData catalogue archive)"
DEFAULT_LIMITS = Limits(
    timeout=30.0, retries=3, backoff=1.0, max_bytes=128 << 20, deadline=300.0, max_retry_after=60.0,
    redirect_origins=config.BSDATA_REDIRECT_ORIGINS,
)  # fmt: skip
DEFAULT_ARCHIVE_LIMITS = ArchiveLimits()
REF_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class BsdataReport:
    url: str
    into: Path
    status: Status
    attempts: int = 0
    error: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # catalogue -> sha256, as the folder now holds
    skipped: int = 0
    datasheets: int = 0

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def summary(self) -> str:
        """One line for the command line."""
        if self.status == "fetched":
            return (
                f"fetched {len(self.files)} catalogues ({self.datasheets} datasheets parsed, "
                f"{self.skipped} other members skipped) from {self.url} -> {self.into}"
            )
        if self.status == "not_modified":
            return f"unchanged (304): kept {len(self.files)} catalogues in {self.into}"
        return f"failed: {self.error} ({self.into} left as it was)"


def archive_url(base_url: str, ref: str) -> str:
    return f"{base_url.rstrip('/')}/{quote(ref, safe='/')}.tar.gz"


def check_ref(ref: str) -> str:
    """A git ref that is safe in a URL path (branch, tag or commit; no `..`, no empty segment)."""
    if not REF_PATTERN.fullmatch(ref) or ".." in ref or "//" in ref or ref.endswith(("/", ".lock")):
        raise FetchError(f"not a usable git ref: {ref!r}")
    return ref


class GzipMagicCheck:
    """Refuses a body that does not start like a gzip file (an HTML error page, say) early."""

    def __init__(self) -> None:
        self._head = b""

    def feed(self, chunk: bytes) -> None:
        if len(self._head) < len(GZIP_MAGIC):
            self._head += chunk[: len(GZIP_MAGIC) - len(self._head)]
            if not GZIP_MAGIC.startswith(self._head):
                raise ContentRefused(f"not a gzip archive (starts with {self._head!r})")

    def finish(self) -> None:
        if self._head != GZIP_MAGIC:
            raise ContentRefused(f"not a gzip archive (starts with {self._head!r})")


def accept(folder: Path, extracted: Extracted) -> int:
    """The acceptance rule; returns the number of datasheets, raises ArchiveError saying why not.

    At least one catalogue; the BSData parser reads the folder without raising; no file
    failed as a whole (not well-formed XML, not a catalogue: a quarantine row of table
    `file`); every extracted file is accounted for by a `sources` row; at least one datasheet.
    """
    from pipeline.sources.registry import read_inputs
    from schemas.records import QuarantineRow, Source

    if not extracted.files:
        raise ArchiveError("no .cat/.gst file in the archive")
    try:
        dataset = read_inputs([folder]).dataset
    except Exception as error:  # any parser failure refuses the set: the old folder stays
        raise ArchiveError(f"the catalogues do not parse: {type(error).__name__}: {error}") from error
    broken = [q for q in dataset.table("quarantine") if isinstance(q, QuarantineRow) and q.table == "file"]
    if broken:
        first = broken[0]
        raise ArchiveError(f"{len(broken)} catalogue(s) unreadable, e.g. {first.source_id}: {first.reason}")
    accounted = {Path(s.path).name for s in dataset.table("sources") if isinstance(s, Source)}
    missing = sorted(set(extracted.files) - accounted)
    if missing:
        raise ArchiveError(f"the parser gave no account of {', '.join(missing)}")
    datasheets = len(dataset.table("datasheets"))
    if not datasheets:
        raise ArchiveError("the catalogues hold no datasheet")
    return datasheets


def _read_manifest(into: Path) -> dict[str, Any] | None:
    """The folder's manifest, if every file it lists is there with its sha256 (else None)."""
    try:
        manifest = json.loads((into / MANIFEST_FILE).read_text(encoding="utf-8"))
        files = manifest["files"]
        intact = bool(files) and all(local_sha256(into / n) == f["sha256"] for n, f in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return manifest if intact and isinstance(manifest, dict) else None


def _validators(manifest: dict[str, Any] | None, url: str) -> dict[str, str]:
    if manifest is None or manifest.get("url") != url:
        return {}
    return {k: str(manifest[k]) for k in ("etag", "last_modified") if manifest.get(k)}


def _remove_leftovers(into: Path) -> None:
    """What a killed earlier run left: staging folders, downloads, and the old folder (put back if
    the run died between the two renames of `_swap`)."""
    for old in into.parent.glob(f".{into.name}.old-*"):
        if not into.exists() and (old / "previous").is_dir():
            os.rename(old / "previous", into)
    patterns = (f".{into.name}.staging-*", f".{into.name}.old-*", f".{into.name}.download*", f"..{into.name}.download*")
    for pattern in patterns:
        for stale in into.parent.glob(pattern):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)


def _swap(staging: Path, into: Path) -> None:
    """Put `staging` where `into` is: two renames, the old folder back if the second fails."""
    staging.chmod(0o755)
    if not into.exists():
        os.rename(staging, into)
    else:
        old = Path(tempfile.mkdtemp(prefix=f".{into.name}.old-", dir=into.parent))
        os.rename(into, old / "previous")
        try:
            os.rename(staging, into)
        except OSError:
            os.rename(old / "previous", into)
            raise
        finally:
            shutil.rmtree(old, ignore_errors=True)
    fsync_dir(into.parent)


def _manifest(report: BsdataReport, outcome: Outcome, extracted: Extracted, ref: str) -> dict[str, Any]:
    files = {name: {"sha256": report.files[name], "size": size} for name, size in sorted(extracted.files.items())}
    return {
        "url": report.url, "ref": ref, "archive_sha256": outcome.sha256, "etag": outcome.etag,
        "last_modified": outcome.last_modified, "datasheets": report.datasheets, "files": files,
        "skipped_members": sorted(extracted.skipped),
    }  # fmt: skip


def _install(archive: Path, report: BsdataReport, outcome: Outcome, ref: str, limits: ArchiveLimits) -> None:
    """Extract, accept, write the manifest, swap in; ArchiveError/OSError leave `report.into` untouched."""
    into = report.into
    # The catalogues sit one level down, so a staging folder left by a killed run is no input
    # `dataslate run` would pick up from raw/ (only folders holding catalogues are).
    wrapper = Path(tempfile.mkdtemp(prefix=f".{into.name}.staging-", dir=into.parent))
    staging = wrapper / "catalogues"
    try:
        staging.mkdir()
        extracted = extract_catalogues(archive, staging, limits)
        report.datasheets = accept(staging, extracted)
        report.files = {name: local_sha256(staging / name) or "" for name in sorted(extracted.files)}
        report.skipped = len(extracted.skipped)
        write_json(staging / MANIFEST_FILE, _manifest(report, outcome, extracted, ref))
        _swap(staging, into)
    finally:
        shutil.rmtree(wrapper, ignore_errors=True)


def fetch_bsdata(
    into: Path,
    *,
    ref: str = config.BSDATA_REF,
    base_url: str = config.BSDATA_ARCHIVE_BASE_URL,
    limits: Limits = DEFAULT_LIMITS,
    archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
    client: httpx.Client | None = None,
) -> BsdataReport:
    """Download the archive of `ref` and replace `into` with its catalogues if they pass `accept`."""
    url, into = archive_url(check_base_url(base_url), check_ref(ref)), Path(into)
    try:
        into.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FetchError(f"cannot create the parent folder: {error}", path=into.parent) from error
    _remove_leftovers(into)
    manifest = _read_manifest(into)
    archive = into.parent / f".{into.name}.download.tar.gz"
    http = client or httpx.Client(headers={"User-Agent": USER_AGENT})
    try:
        outcome = download(http, url, archive, _validators(manifest, url), limits, GzipMagicCheck)
    finally:
        if client is None:
            http.close()
    report = BsdataReport(url, into, outcome.status, outcome.attempts, outcome.error)
    if outcome.status == "not_modified" and manifest is not None:
        report.files = {name: entry["sha256"] for name, entry in manifest["files"].items()}
        report.datasheets = int(manifest.get("datasheets") or 0)
    if outcome.status == "fetched":
        try:
            _install(archive, report, outcome, ref, archive_limits)
        except (ArchiveError, OSError) as error:
            report.status, report.error, report.files = "failed", str(error), {}
        finally:
            archive.unlink(missing_ok=True)
    return report
