"""Processes of their own for the run's Python work that needs none of this process's objects: GX validation
(quality) and the explorer site (publish) (docs/scaling.md#the-helper-process).

Why: this process's stages are Python, and only one thread runs Python at a time. Importing GX (≈ 1 s) held
the GIL beside the damage, matchups and store stages; rendering the site (≈ 1.5 s) came after the faction
documents on the same thread. GX's helper imports GX while this process parses; the site's renders the site
from the release's Parquet files while this process runs the gates and writes the faction documents.
A new interpreter, not a fork: nothing of this process's threads, locks or libraries' pools is copied, and
nothing of its main script runs there. It holds only its end of one socket, so it ends when this process does,
however this one ends (`runtime.exit_now` included). If it cannot start or dies, the work runs here as before,
with a warning.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from pipeline.publish.site.build import SiteReport
    from pipeline.quality.report import ExpectationOutcome
    from pipeline.quality.suites import SuiteSpec


class HelperWarning(UserWarning):
    """The helper process could not serve: its work runs in this process."""


#: The helpers a run starts: GX's (it imports GX at once), and the site's (it imports Polars and Jinja2 at once),
#: so that the site renders while GX validates.
ROLES = ("gx", "site")
#: How long a request waits for the helper to finish the one before (then the work runs here, warned).
BUSY_TIMEOUT_S = 600.0


#: The helper's program: this process's `sys.path`, then `serve` on the socket it is handed. Not
#: multiprocessing's `spawn`, which runs the parent's main script again in the child (as `__mp_main__`): a
#: script calling `run_pipeline` without an `if __name__ == "__main__":` guard ran its top level in each helper.
_BOOT = "import json, sys; sys.path[:] = json.loads(sys.argv[1]); from pipeline.helper_process import serve; serve()"


class HelperProcess:
    """One started interpreter; each call sends a request and waits for its reply (one at a time)."""

    def __init__(self, role: str = "gx") -> None:
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(theirs.fileno()), role]
        try:
            self._process = subprocess.Popen(
                command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
            )
        finally:
            theirs.close()  # only the child holds its end: its `recv` ends when this process does
        self._conn = Connection(ours.detach())
        self._lock = threading.Lock()
        self.role = role

    def validate(self, suite: SuiteSpec, batch: Any, key: tuple[str, ...]) -> list[ExpectationOutcome]:
        """`GxRunner.validate` there. `batch`: a `pyarrow.Table` (converted there as `arrow_as_pandas` does, so
        the caller checked `converts_through_arrow`) or a pandas frame. Raises `OSError`/`EOFError` if the
        process is gone, and what GX raised there."""
        return list(self.send(("validate", suite, batch, key))())

    def site(self, release: Path, version: str) -> Callable[[], SiteReport]:
        """`write_site` there, from the release's `<table>.parquet` files (the same frames: the store wrote
        them); returns the wait for its report. Until then the helper takes no other request."""
        return self.send(("site", release, version))

    def send(self, request: tuple[Any, ...]) -> Callable[[], Any]:
        """Send `request` now; the returned call waits for its reply (call it once). `OSError` if the helper is
        still busy with an earlier request after `BUSY_TIMEOUT_S`."""
        if not self._lock.acquire(timeout=BUSY_TIMEOUT_S):
            raise OSError(f"the {self.role} helper is still busy")
        try:
            self._conn.send(request)
        except BaseException:
            self._lock.release()
            raise

        def reply() -> Any:
            try:
                ok, value = self._conn.recv()
            finally:
                self._lock.release()
            if not ok:
                raise value
            return value

        return reply

    def alive(self) -> bool:
        return self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def close(self) -> None:
        """Close this end of the socket: the helper's `recv` ends and it exits."""
        self._conn.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)


def serve() -> None:
    """The helper's main (`_BOOT`): argv holds the socket's descriptor and the role. Once the run's process has
    gone (the socket closed) the helper ends as that process does, without the interpreter's teardown
    (`runtime.exit_now`): with GX imported that took ≈ 0.6 s, and whoever reads the run's stderr, which the
    helper shares, waited for it (docs/scaling.md#process-exit)."""
    from pipeline.runtime import exit_now

    _serve(Connection(int(sys.argv[2])), sys.argv[3])
    exit_now(0)


def _serve(conn: Connection, role: str) -> None:
    """The process: what its role needs imported (and GX set up) once, then one reply per request until its
    parent ends."""
    runner, failure = _set_up(role)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send((True, _answer(request, runner, failure)))
        except Exception as exc:
            _send_error(conn, exc)


def _set_up(role: str) -> tuple[Any, Exception | None]:
    """What `role` needs, imported (GX set up) on a thread of lower priority (`runtime.lower_thread_priority`):
    the run's own processes get the cores first. Replies come from this thread, whose priority is unchanged (an
    unprivileged thread cannot raise its priority back). A site helper whose import fails ends here (the run then
    renders the site itself, warned); GX's failure is returned, to be raised where a suite is validated."""
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.runtime import lower_thread_priority

    with ThreadPoolExecutor(1, thread_name_prefix=f"{role}-setup", initializer=lower_thread_priority) as setup:
        return setup.submit(_gx_runner if role == "gx" else _site_imports).result()


def _site_imports() -> tuple[None, None]:
    import pipeline.publish.site.build  # noqa: F401 (Polars, Jinja2 and the templates' code, ahead)

    return None, None


def _send_error(conn: Connection, exc: Exception) -> None:
    """`exc` back to the run, raised there; as a `RuntimeError` with its text if it cannot be pickled."""
    try:
        conn.send((False, exc))
    except Exception:
        conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def _gx_runner() -> tuple[Any, Exception | None]:
    try:
        from pipeline.quality.gx_runner import GxRunner

        return GxRunner(), None
    except Exception as exc:  # raised on the first validation, where the stage reports it
        return None, exc


def _answer(request: tuple[Any, ...], runner: Any, failure: Exception | None) -> Any:
    if request[0] == "site":
        from pipeline.publish.site.build import write_site

        _, release, version = request
        return write_site(ReleaseFrames(release), release, version)
    _, suite, batch, key = request
    if runner is None:
        raise failure or RuntimeError("GX did not start")
    import pyarrow as pa

    if isinstance(batch, pa.Table):
        from pipeline.quality.pandas_frames import arrow_as_pandas

        batch = arrow_as_pandas(batch, None)
    return runner.validate(suite, batch, key)


class ReleaseFrames(Mapping[str, "pl.DataFrame"]):
    """A release's tables read from its `<table>.parquet` files when first looked up."""

    def __init__(self, release: Path) -> None:
        self.release = release
        self._read: dict[str, pl.DataFrame] = {}

    def __getitem__(self, table: str) -> pl.DataFrame:
        if table not in self._read:
            import polars as pl

            path = self.release / f"{table}.parquet"
            if not path.is_file():
                raise KeyError(table)
            self._read[table] = pl.read_parquet(path)
        return self._read[table]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(p.stem for p in self.release.glob("*.parquet")))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, table: object) -> bool:
        return isinstance(table, str) and (self.release / f"{table}.parquet").is_file()


_helpers: dict[str, HelperProcess] = {}
_helper_lock = threading.Lock()


def start_helper(role: str = "gx") -> HelperProcess | None:
    """This process's helper of `role` (`ROLES`), started now if none runs (None: it cannot start; warned)."""
    if role not in ROLES:
        raise ValueError(f"unknown helper role {role!r} (one of {', '.join(ROLES)})")
    with _helper_lock:
        found = _helpers.get(role)
        if found is not None and found.alive():
            return found
        try:
            _helpers[role] = HelperProcess(role)
        except OSError as exc:
            warnings.warn(f"no {role} helper process ({exc}): its work runs here", HelperWarning, stacklevel=2)
            _helpers.pop(role, None)
            return None
        return _helpers[role]


def stop_helpers() -> None:
    """End this process's helpers (a run too large for them: `config.HELPER_MAX_INPUT_BYTES`)."""
    with _helper_lock:
        stopping = list(_helpers.values())
        _helpers.clear()
    for helper in stopping:
        helper.close()


def inputs_bytes(paths: Iterable[Path]) -> int:
    """The bytes of every regular file under `paths` (links not followed)."""
    total = 0
    for path in paths:
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
        for folder, _, files in os.walk(path) if path.is_dir() and not path.is_symlink() else ():
            for name in files:
                info = os.lstat(os.path.join(folder, name))
                total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def running_helper(role: str = "gx") -> HelperProcess | None:
    """The helper of `role` if one was started and still runs."""
    with _helper_lock:
        found = _helpers.get(role)
        return found if found is not None and found.alive() else None


def helpers_peak_rss_mb() -> float:
    """The running helpers' peak RSS, summed (Linux `VmHWM`; 0 where /proc has none): a run's memory is its
    own and its helpers' (benchmarks report both)."""
    with _helper_lock:
        pids = [h.pid for h in _helpers.values() if h.alive()]
    total_kib = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total_kib += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
    return round(total_kib / 1024, 1)
