"""Helpers the release tests share: fingerprints of output folders and DuckDB contents."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
from typer.testing import CliRunner, Result

from pipeline.cli import app

STAGING_PREFIX = ".staging-"
#: What an output folder holds beside its releases: the publishers' lock file and the last rejected report.
HOUSEKEEPING = {".dataslate.lock", ".rejected"}
BROKEN_PAGE = Path(__file__).parent.parent / "fixtures" / "broken" / "pages" / "900_broken_page.txt"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(out: Path) -> dict[str, str]:
    """Every entry of an output folder but staging folders and housekeeping: file -> sha256, link -> its target.

    Links are not followed, so `latest` and the convenience links are compared as links.
    """
    state: dict[str, str] = {}
    for folder, dirs, files in os.walk(out):
        here = Path(folder)
        for name in [*dirs, *files]:
            path = here / name
            if name.startswith(STAGING_PREFIX) or (here == out and name in HOUSEKEEPING):
                continue
            if path.is_symlink():
                state[str(path.relative_to(out))] = f"-> {os.readlink(path)}"
            elif path.is_file():
                state[str(path.relative_to(out))] = sha256(path)
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(STAGING_PREFIX)
            and not (here / d).is_symlink()
            and not (here == out and d in HOUSEKEEPING)
        ]
    return state


def release_files(release: Path) -> dict[str, str]:
    """sha256 of every file of a release folder, by relative path."""
    return {str(p.relative_to(release)): sha256(p) for p in sorted(release.rglob("*")) if p.is_file()}


def staging_folders(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX))


def duckdb_contents(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's and view's rows, sorted (as text, so NULLs and lists sort too)."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        con.execute("SET file_search_path = ?", [db_path.parent.as_posix()])
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
        return {name: sorted(con.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in names}
    finally:
        con.close()


def invoke(*args: str | Path) -> Result:
    """`dataslate ARGS` in-process (the real command, its exit code and both streams)."""
    return CliRunner().invoke(app, [str(a) for a in args])


@dataclass(frozen=True)
class Published:
    out: Path
    version: str

    @property
    def release(self) -> Path:
        return self.out / self.version


@dataclass(frozen=True)
class Breakage:
    """One hand-made defect: where it is and its quarantine reason (a part of it for defects whose
    reason does not exist yet)."""

    source_id: str
    line: int
    reason: str


@dataclass
class BrokenInputs:
    pages: Path
    wahapedia: Path
    page: Path = BROKEN_PAGE
    breakages: dict[str, Breakage] = field(default_factory=dict)

    @property
    def paths(self) -> list[Path]:
        return [self.pages, self.wahapedia, self.page]


def one_error(result: Result, code: int = 1) -> str:
    """The single `error:` line of a failed command: its exit code, no traceback, nothing on stdout."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert "published" not in result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and result.stderr.endswith(errors[0] + "\n"), result.stderr
    return errors[0]
