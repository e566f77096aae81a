"""One error handler for every command: exit codes, one message, the failing stage named, DATASLATE_DEBUG.

Real processes: the installed console script where a real failure exists (a missing input, a file that is
not a DuckDB database), and `tests.failing_cli` (the same app plus one command that raises on purpose)
for the failures the pipeline has no input for.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import pipeline
from pipeline.cli import _handled, app

ROOT = Path(__file__).resolve().parent.parent
DATASLATE = Path(sys.executable).parent / "dataslate"
HINT = "(set DATASLATE_DEBUG=1 for details)"


def _env(tmp_path: Path, debug: bool = False) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "400", "HOME": str(tmp_path)}
    return {**env, "DATASLATE_DEBUG": "1"} if debug else env


def _failing(tmp_path: Path, *args: str, debug: bool = False) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tests.failing_cli", "fail", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(tmp_path, debug), check=False)


@pytest.mark.parametrize(
    ("kind", "code", "message"),
    [
        ("pipeline", 1, "error: raw/Datasheets.csv:7: wrong field count"),
        ("quality", 3, "error: 1 critical quality gate(s) failed: weapons: ap <= 0"),
        ("unexpected", 1, f"error: unexpected KeyError: 'no-such-column' in stage damage matrix {HINT}"),
    ],
)
def test_a_failing_stage_prints_its_cross_then_one_message_and_the_exit_code(
    kind: str, code: int, message: str, tmp_path: Path
) -> None:
    proc = _failing(tmp_path, kind, "--stage", "damage matrix")
    assert (proc.returncode, proc.stdout) == (code, "")
    failed_stage, line = proc.stderr.strip().splitlines()
    assert re.fullmatch(r"✗ damage matrix \d+\.\ds", failed_stage)
    assert line == message


def test_outside_any_stage_the_command_is_the_stage(tmp_path: Path) -> None:
    proc = _failing(tmp_path, "unexpected")
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"error: unexpected KeyError: 'no-such-column' in stage fail {HINT}"


def test_debug_shows_the_traceback_of_an_unexpected_error(tmp_path: Path) -> None:
    proc = _failing(tmp_path, "unexpected", "--stage", "damage matrix", debug=True)
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "KeyError: 'no-such-column'" in proc.stderr
    assert "error: unexpected" not in proc.stderr


def test_debug_leaves_planned_errors_as_one_message(tmp_path: Path) -> None:
    proc = _failing(tmp_path, "pipeline", debug=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "error: raw/Datasheets.csv:7: wrong field count"


def _not_a_database(tmp_path: Path) -> Path:
    release = tmp_path / "release"
    release.mkdir()
    (release / "dataslate.duckdb").write_bytes(b"not a database\n")
    (release / "manifest.json").write_text("{}\n")
    return release


@pytest.mark.parametrize("debug", [False, True])
def test_an_unexpected_error_of_the_console_script(debug: bool, tmp_path: Path) -> None:
    """A file named like a release database that is not one: DuckDB's own error, not one we planned for."""
    release = _not_a_database(tmp_path)
    command = [str(DATASLATE), "sql", "SELECT 1", "--release", str(release)]
    proc = subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path, debug), check=False)
    assert (proc.returncode, proc.stdout) == (1, "")
    if debug:
        assert "Traceback" in proc.stderr and "not a valid DuckDB database file" in proc.stderr
    else:
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith(f'error: unexpected IOException: IO Error: The file "{release / "dataslate.duckdb"}"')
        assert line.endswith(f"not a valid DuckDB database file! in stage sql {HINT}")


def test_every_command_goes_through_the_one_handler() -> None:
    handler = _handled("any", lambda: None).__code__
    groups = [app, *(group.typer_instance for group in app.registered_groups)]
    commands = [info for group in groups if group is not None for info in group.registered_commands]
    assert {info.name for info in commands} >= {"run", "parse", "sql", "quality", "diff", "wahapedia"}
    assert [info.name for info in commands if getattr(info.callback, "__code__", None) is not handler] == []


def test_version_from_the_console_script(tmp_path: Path) -> None:
    proc = subprocess.run([str(DATASLATE), "--version"], capture_output=True, text=True, env=_env(tmp_path))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"dataslate {project['version']}\n", "")
    assert pipeline.__version__ == project["version"] == version("dataslate")
