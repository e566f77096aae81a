"""The `dataslate` command's errors: one clear message, exit code 1, no traceback, nothing written.

One test runs the installed console script in a real process (what a user types); the
others use Typer's runner on the same app in-process, which is much cheaper.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pipeline import __version__, config
from tests.publish.releases import invoke, one_error

DATASLATE = Path(sys.executable).parent / "dataslate"


def test_run_with_a_missing_input_fails_in_one_line_from_the_console_script(tmp_path: Path) -> None:
    missing, out = tmp_path / "no-such-export", tmp_path / "curated"
    proc = subprocess.run(
        [str(DATASLATE), "run", "--input", str(missing), "--out", str(out)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "400", "HOME": str(tmp_path)},
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    failed_stage, message = proc.stderr.strip().splitlines()
    assert re.fullmatch(r"✗ parse inputs \d+\.\ds", failed_stage)
    assert message == f"error: {missing}: input path does not exist"
    assert not out.exists()


@pytest.mark.parametrize("command", ["run", "parse"])
def test_a_missing_input_is_named_in_the_message(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    args: list[str | Path] = (
        ["run", "--input", missing, "--out", tmp_path / "out"] if command == "run" else ["parse", missing]
    )
    assert f"error: {missing}: input path does not exist" in one_error(invoke(*args))
    assert not (tmp_path / "out").exists()


def test_an_input_of_unknown_format_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "Units.csv").write_text("id|name|\n1|Boyz|\n")
    message = one_error(invoke("parse", folder))
    assert f"{folder}: cannot tell the format" in message


def test_a_path_that_looks_like_markup_is_printed_as_it_is(tmp_path: Path) -> None:
    """`[/x]` in a path once crashed Rich's markup parser (a traceback instead of the message)."""
    missing = tmp_path / "pages[/x]" / "[bold]p.txt"
    assert f"{missing}: input path does not exist" in one_error(invoke("parse", missing))


@pytest.mark.parametrize("command", ["sql", "diff"])
def test_a_folder_without_a_release_is_refused(command: str, tmp_path: Path) -> None:
    args: list[str | Path] = (
        ["sql", "SELECT 1", "--release", tmp_path] if command == "sql" else ["diff", tmp_path, tmp_path]
    )
    message = one_error(invoke(*args))
    assert f"{tmp_path}: no release here (expected dataslate.duckdb and manifest.json)" in message


def test_parse_prints_counts_per_table_as_json() -> None:
    result = invoke("parse", config.RAW_PAGES_DIR, "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert (counts["datasheets"], counts["weapons"], counts["points"], counts["sources"]) == (3, 12, 3, 3)


@pytest.mark.parametrize(("option", "folders"), [(["none"], []), (["cover"], ["scenario=cover"])])
def test_unit_matchups_option_chooses_the_scenarios_of_the_unit_table(
    option: list[str], folders: list[str], tmp_path: Path
) -> None:
    args = [a for name in option for a in ("--unit-matchups", name)]
    result = invoke("run", "--input", config.RAW_PAGES_DIR, "--out", tmp_path / "out", *args)
    assert result.exit_code == 0, result.output
    table = tmp_path / "out" / config.LATEST_NAME / "unit_matchups"
    assert (sorted(p.name for p in table.iterdir()) if table.exists() else []) == folders
    assert (tmp_path / "out" / config.LATEST_NAME / "unit_vs_reference.parquet").exists()


def test_an_unknown_unit_matchups_scenario_is_refused_before_any_work(tmp_path: Path) -> None:
    result = invoke("run", "--input", config.RAW_PAGES_DIR, "--out", tmp_path / "out", "--unit-matchups", "bogus")
    assert result.exit_code == 2
    assert "unknown scenario 'bogus'" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "code", "out"),
    [(["--version"], 0, [f"dataslate {__version__}"]), (["run", "--input", "/no-such-export", "--out", "/tmp"], 1, [])],
)
def test_the_console_script_runs_atexit_handlers_but_no_teardown(argv: list[str], code: int, out: list[str]) -> None:
    """`dataslate` is `entry`: it exits with the command's code, flushed output and atexit handlers run, but
    without the interpreter's teardown, whose collections walk every live object (docs/scaling.md#process-exit).
    A module-level object's finaliser, run by a teardown, shows whether there was one."""
    scripts = tomllib.loads((config.REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"dataslate": "pipeline.cli:entry"}
    script = (
        "import atexit, sys\n"
        "class Kept:\n    def __del__(self): print('teardown')\n"
        "kept = Kept()\n"
        "atexit.register(lambda: print('atexit'))\n"
        "from pipeline.cli import entry\n"
        f"sys.argv = ['dataslate', *{argv!r}]\n"
        "entry()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode == code
    assert proc.stdout.splitlines() == [*out, "atexit"]
    assert "leaked" not in proc.stderr
