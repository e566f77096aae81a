"""Real releases for the SQL attacks, built once per session through the `dataslate` console script.

Everything lives under one folder (`Lab.root`): the releases, HOME and TMPDIR of every command,
and its working directory. An attack that writes anything, anywhere there, shows in `snapshot`.

- `lab.release`: `dataslate run --input raw/pages`, into an output folder named like an SQL
  injection (`x'; COPY (SELECT 42) TO '<root>/PWNED.csv'; SELECT '`); its damage matrix is a table.
- `lab.view_release`: a copy in a folder with an apostrophe and a comma, its damage matrix turned
  into a view over the release's Parquet (as a release above DAMAGE_TABLE_MAX_ROWS cells has).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from pipeline import config
from pipeline.store.load import DAMAGE_TABLE_MAX_ROWS, attach_damage_matrix

SCRIPT = Path(sys.executable).parent / "dataslate"
#: Seconds any one command may take before the test gives up on it (the limits under test are far lower).
COMMAND_TIMEOUT = 300


@dataclass(frozen=True)
class Lab:
    root: Path
    out: Path
    release: Path
    view_release: Path

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.root / "home"), "TMPDIR": str(self.root / "tmp")}

    def dataslate(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        """The installed console script, run from inside the lab."""
        return subprocess.run(
            [str(SCRIPT), *map(str, args)],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under root: file -> sha256, link -> its target, folder -> "dir"."""
    state: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            key = str(path.relative_to(root))
            if path.is_symlink():
                state[key] = "-> " + os.readlink(path)
            elif path.is_dir():
                state[key] = "dir"
            else:
                state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def sql_text(path: Path) -> str:
    """A path inside an SQL string literal (quotes doubled): the attacks must be valid SQL."""
    return str(path).replace("'", "''")


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single `error: ...` line of a failed command: exit 1, nothing on stdout, no traceback."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def _as_view(release: Path, target: Path) -> Path:
    """A copy of `release` whose damage matrix is a view (cells above the table threshold)."""
    shutil.copytree(release, target, symlinks=True)
    db = target / config.DUCKDB_FILENAME
    con = duckdb.connect(str(db))
    try:
        con.execute("DROP VIEW v_weapon_vs_reference; DROP TABLE damage_matrix; CHECKPOINT")
    finally:
        con.close()
    assert attach_damage_matrix(db, DAMAGE_TABLE_MAX_ROWS + 1) == "view"
    return target


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    if not SCRIPT.is_file():
        pytest.fail(f"console script not installed: {SCRIPT}", pytrace=False)
    root = tmp_path_factory.mktemp("security")
    (root / "home").mkdir()
    (root / "tmp").mkdir()
    out = root / f"x'; COPY (SELECT 42) TO '{root}/PWNED.csv'; SELECT '"
    lab = Lab(root, out, out, out)
    built = lab.dataslate("run", "--input", config.RAW_PAGES_DIR, "--out", out)
    assert built.returncode == 0, built.stderr
    release = (out / config.LATEST_NAME).resolve()
    view = _as_view(release, root / "T'au, Empire" / release.name)
    return Lab(root, out, release, view)
