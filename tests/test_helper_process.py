"""The helper process: the site it renders from a release's Parquet files is the site rendered here from the run's
frames, byte for byte; its errors are raised here; it ends with the process that started it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline import helper_process
from pipeline.helper_process import ReleaseFrames, inputs_bytes, running_helper, start_helper
from pipeline.publish.site.build import write_site
from pipeline.runtime import BACKGROUND_NICENESS
from pipeline.store.parquet import write_parquet_tables
from tests.seed_frames import seed_stages


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_helper_renders_the_site_this_process_renders(tmp_path: Path) -> None:
    frames = seed_stages().frames
    there, here = tmp_path / "there", tmp_path / "here"
    for release in (there, here):
        release.mkdir()
        write_parquet_tables(frames, release)
    helper = start_helper()
    assert helper is not None
    report = helper.site(there, "v0123456789ab")()
    assert report == write_site(frames, here, "v0123456789ab")
    assert report.pages > 3
    assert _files(there / "site") == _files(here / "site")


def test_the_helpers_error_is_raised_here(tmp_path: Path) -> None:
    """A release without its Parquet files: the helper's `KeyError`, and the helper serves on."""
    helper = start_helper()
    assert helper is not None
    with pytest.raises(KeyError, match="keywords"):
        helper.site(tmp_path, "v0123456789ab")()
    assert helper.alive()


def test_release_frames_read_what_the_release_holds(tmp_path: Path) -> None:
    frames = seed_stages().frames
    write_parquet_tables(frames, tmp_path)
    found = ReleaseFrames(tmp_path)
    assert "units" in found and "damage_matrix" not in found and "nope" not in found
    assert found["units"].equals(frames["units"])
    assert sorted(found) == sorted(t for t in frames if t != "damage_matrix")
    with pytest.raises(KeyError):
        found["nope"]


ENDS = """
import os, sys
sys.path.insert(0, {root!r})
from pipeline.helper_process import start_helper
helper = start_helper()
print(helper.pid, flush=True)
os._exit(0)
"""


def test_the_helper_ends_when_its_process_ends_abruptly() -> None:
    """`os._exit` runs no clean-up: the helper sees its pipe close and ends."""
    root = str(Path(__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", ENDS.format(root=root)], capture_output=True, text=True, check=True)
    pid = int(done.stdout.split()[0])
    for _ in range(200):
        if not Path(f"/proc/{pid}").exists() or "Z" in _state(pid):
            return
        time.sleep(0.1)
    pytest.fail(f"helper {pid} still runs 20 s after its parent ended")


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


UNGUARDED = """
import sys
sys.path.insert(0, {root!r})
print("top level", flush=True)
from pipeline import config
from pipeline.run import run_pipeline
run_pipeline([config.RAW_PAGES_DIR], __import__("pathlib").Path({out!r}))
"""


def test_a_script_without_a_main_guard_runs_once(tmp_path: Path) -> None:
    """The helpers are new interpreters running the helper's own code: the calling script's top level is not
    run again in them (multiprocessing's `spawn` ran it in each, as `__mp_main__`)."""
    root = str(Path(__file__).resolve().parent.parent)
    script = tmp_path / "script.py"
    script.write_text(UNGUARDED.format(root=root, out=str(tmp_path / "out")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.count("top level") == 1
    assert "Traceback" not in done.stderr


def test_inputs_bytes_counts_regular_files_only(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 10)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_bytes(b"y" * 5)
    (tmp_path / "link.txt").symlink_to(tmp_path / "a.txt")
    assert inputs_bytes([tmp_path, tmp_path / "a.txt"]) == 10 + 5 + 10


def test_a_run_over_the_input_limit_keeps_its_work_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed pages (a few KB) over a limit of 0 bytes: no helper runs (an earlier run's are stopped), and the
    release is the one a run with helpers publishes (the site, the quality report)."""
    from pipeline import config
    from pipeline.run import run_pipeline

    monkeypatch.setenv("DATASLATE_CACHE", "off")
    with_helpers = run_pipeline([config.RAW_PAGES_DIR], tmp_path / "with")
    assert running_helper("gx") is not None and running_helper("site") is not None
    monkeypatch.setattr(config, "HELPER_MAX_INPUT_BYTES", 0)
    alone = run_pipeline([config.RAW_PAGES_DIR], tmp_path / "alone")
    assert running_helper("gx") is None and running_helper("site") is None
    for part in ("site", "quality"):
        assert _files(alone.release / part) == _files(with_helpers.release / part)


class _Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("holds a lambda")
        self.hook = lambda: None


def test_an_error_that_cannot_be_pickled_comes_back_as_its_text() -> None:
    from multiprocessing import Pipe

    from pipeline.helper_process import _send_error

    ours, theirs = Pipe()
    _send_error(theirs, _Unpicklable())
    ok, error = ours.recv()
    assert not ok and isinstance(error, RuntimeError)
    assert str(error) == "_Unpicklable: holds a lambda"


def test_an_unknown_role_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown helper role 'dask'"):
        start_helper("dask")


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_helper_imports_at_a_lower_priority_and_replies_at_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def set_up_gx() -> tuple[str, None]:
        seen.append(_niceness())
        return "runner", None

    monkeypatch.setattr(helper_process, "_gx_runner", set_up_gx)
    before = _niceness()
    if before + BACKGROUND_NICENESS > 19:
        pytest.skip("this process runs too near the lowest priority to see it lowered")
    assert helper_process._set_up("gx") == ("runner", None)
    assert seen == [before + BACKGROUND_NICENESS]
    assert _niceness() == before  # the thread that serves the run's requests


def test_a_site_helper_that_cannot_import_ends_and_a_gx_one_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pipeline.publish.site.build", None)  # its import raises ImportError
    with pytest.raises(ImportError):
        helper_process._set_up("site")
    failure = RuntimeError("no GX")
    monkeypatch.setattr(helper_process, "_gx_runner", lambda: (None, failure))
    assert helper_process._set_up("gx") == (None, failure)
