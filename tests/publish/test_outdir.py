"""The output folder on its own: checked before any work, one publisher at a time, leftovers of dead runs
removed, the publication sequence read from `latest`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import config
from pipeline.errors import PublishError
from pipeline.publish.outdir import (
    LOCK_NAME,
    OutputFolder,
    check_output,
    open_output,
    publish_lock,
    read_release,
    remove_leftovers,
)
from pipeline.publish.release import switch_latest


def test_a_missing_output_folder_is_created_and_a_relative_one_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert check_output(Path("a/b")) == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()
    assert list((tmp_path / "a" / "b").iterdir()) == []


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("/", "refusing to publish into the filesystem root"),
        ("file", "the output folder is a file"),
        ("file/sub", "the output folder cannot be created or written (Not a directory)"),
        ("/proc/self", "the output folder cannot be created or written"),
        ("/proc/self/new", "the output folder cannot be created or written"),
    ],
)
def test_an_output_folder_that_cannot_hold_a_release_is_refused(out: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(PublishError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_output(tmp_path / out)


def test_a_second_lock_on_one_folder_fails_at_once_naming_the_holder(tmp_path: Path) -> None:
    held = rf"another dataslate run \(pid {os.getpid()}\) is publishing"
    with publish_lock(tmp_path), pytest.raises(PublishError, match=held), publish_lock(tmp_path):
        pass
    with publish_lock(tmp_path):  # released: the next one gets it
        assert (tmp_path / LOCK_NAME).read_text() == f"{os.getpid()}\n"


@pytest.mark.parametrize("planted", ["link", "folder"])
def test_a_lock_file_that_is_not_a_file_is_refused(planted: str, tmp_path: Path) -> None:
    lock = tmp_path / LOCK_NAME
    if planted == "link":
        lock.symlink_to(tmp_path / "elsewhere")
    else:
        lock.mkdir()
    with pytest.raises(PublishError, match=rf"cannot open the lock file \{LOCK_NAME} \("), publish_lock(tmp_path):
        pass
    assert not (tmp_path / "elsewhere").exists()


def _dead_pid() -> int:
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(process.stdout)


def test_only_the_leftovers_of_dead_runs_are_removed(tmp_path: Path) -> None:
    dead, alive = _dead_pid(), os.getpid()
    for name in (f".staging-v1-{dead}", f".staging-v2-{alive}", "v0", ".rejected"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "file").write_text("x")
    (tmp_path / f".latest.tmp-{dead}").symlink_to("v0")
    (tmp_path / f".manifest.json.tmp-{alive}").symlink_to("v0")
    removed = remove_leftovers(tmp_path)
    assert removed == [f".latest.tmp-{dead}", f".staging-v1-{dead}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".staging-v2-{alive}", "v0", ".rejected", f".manifest.json.tmp-{alive}"]
    )


def _release(out: Path, name: str, version: str, sequence: int | None, previous: str | None = None) -> None:
    folder = out / name
    folder.mkdir(parents=True)
    manifest = {"version": version, "row_counts": {"datasheets": 3}, "inputs": [{"source_id": "s", "rows_curated": 2}]}
    if sequence is not None:
        manifest["publication"] = {"sequence": sequence, "previous": previous}
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_the_sequence_follows_latest_and_a_rebuild_keeps_its_place(tmp_path: Path) -> None:
    assert OutputFolder(tmp_path, None).publication("v1").as_dict() == {"sequence": 1, "previous": None}
    _release(tmp_path, "v1", "v1", 1)
    _release(tmp_path, "v2", "v2", 2, "v1")
    switch_latest(tmp_path, "v2")
    with open_output(tmp_path) as output:
        assert output.publication("v3").as_dict() == {"sequence": 3, "previous": "v2"}
        assert output.publication("v2").as_dict() == {"sequence": 2, "previous": "v1"}
        assert output.publication("v1").as_dict() == {"sequence": 3, "previous": "v2"}
        previous = output.publication("v3").previous
        assert previous is not None and (previous.row_counts, previous.curated) == ({"datasheets": 3}, {"s": 2})


def test_a_release_without_a_readable_manifest_is_no_previous_release(tmp_path: Path) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "manifest.json").write_text("{not json")
    assert read_release(tmp_path / "v1") is None
    _release(tmp_path, "v0", "v0", None)
    info = read_release(tmp_path / "v0")
    assert info is not None and info.sequence == 0  # a release from before the sequence existed


def test_latest_moved_by_another_publisher_is_not_replaced(tmp_path: Path) -> None:
    _release(tmp_path, "v1", "v1", 1)
    _release(tmp_path, "v9", "v9", 5)
    switch_latest(tmp_path, "v1")
    with open_output(tmp_path) as output:
        output.check_latest_unmoved()
        switch_latest(tmp_path, "v9")  # someone who bypassed the lock
        with pytest.raises(PublishError, match=r"latest moved during this run \(v1 -> v9\): not replacing it"):
            output.check_latest_unmoved()


def test_a_failed_run_removes_the_output_folder_it_created(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), open_output(tmp_path / "new"):
        raise RuntimeError("the run failed")
    assert not (tmp_path / "new").exists()
    (tmp_path / "kept").mkdir()
    with pytest.raises(RuntimeError), open_output(tmp_path / "kept"):
        raise RuntimeError("the run failed")
    assert [p.name for p in (tmp_path / "kept").iterdir()] == [LOCK_NAME]
    assert not (tmp_path / "kept" / config.LATEST_NAME).exists()
