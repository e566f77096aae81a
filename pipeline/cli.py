"""The `dataslate` command: parses arguments, shows progress, turns errors into one message.

All the work is done by the library (`pipeline.run` and the stage packages).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from pipeline import __version__, config
from pipeline.errors import PipelineError, QualityGateError
from pipeline.runtime import exit_now

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__, pretty_exceptions_show_locals=False)
fetch_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Download raw inputs.")
app.add_typer(fetch_app, name="fetch")
console = Console(stderr=True)
out = Console()

EXIT_ERROR = 1
EXIT_QUALITY = 3
DEBUG_ENV = "DATASLATE_DEBUG"
P = ParamSpec("P")


class MatchupExecutor(StrEnum):
    IN_PROCESS = "inprocess"
    DASK = "dask"


class Progress:
    """The stage a command is in: a spinner, then ✓ and its time, or ✗ and its name when it fails."""

    def __init__(self) -> None:
        self.stage = ""

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        outer, self.stage = self.stage, name
        start = time.perf_counter()
        try:
            with console.status(f"[bold]{escape(name)}[/]…"):
                yield
        except Exception:
            console.print(f"  [red]✗[/] {escape(name)} [dim]{time.perf_counter() - start:.1f}s[/]")
            raise  # self.stage keeps the failed stage's name for the error message
        console.print(f"  [green]✓[/] {escape(name)} [dim]{time.perf_counter() - start:.1f}s[/]")
        self.stage = outer


progress = Progress()


def _debug() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _fail(message: str, code: int) -> typer.Exit:
    console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)  # one line, paths unbroken
    return typer.Exit(code)


def _handled(name: str, command: Callable[P, None]) -> Callable[P, None]:
    """The one place errors become messages and exit codes; until a stage starts, the command is the stage."""

    @functools.wraps(command)
    def handled(*args: P.args, **kwargs: P.kwargs) -> None:
        progress.stage = name
        try:
            command(*args, **kwargs)
            return
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except QualityGateError as exc:
            message, code = str(exc), EXIT_QUALITY
        except PipelineError as exc:
            message, code = str(exc), EXIT_ERROR
        except Exception as exc:  # an unplanned failure still gets one message, not a traceback
            if _debug():
                raise
            message, code = f"unexpected {type(exc).__name__}: {exc} in stage {progress.stage}", EXIT_ERROR
            message += f" (set {DEBUG_ENV}=1 for details)"
        # Raised outside the except blocks: the exit carries no traceback that would keep the
        # failed stage's objects (open DuckDB connections, frames) alive until interpreter exit.
        raise _fail(message, code)

    return handled


def command(
    group: typer.Typer, name: str, *, stage: str | None = None
) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a function as `dataslate [group] <name>`, behind the one error handler."""

    def register(function: Callable[P, None]) -> Callable[P, None]:
        group.command(name)(_handled(stage or name, function))
        return function

    return register


def _print_version(value: bool) -> None:
    if value:
        out.print(f"dataslate {__version__}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """The `dataslate` command (help text: the module docstring)."""


@command(app, "run")
def run(
    inputs: Annotated[list[Path] | None, typer.Option("--input", "-i", help="Input file or folder; repeat.")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder (releases + latest).")] = None,
    max_row_drop: Annotated[
        float,
        typer.Option(
            "--max-row-drop",
            min=0.0,
            help="Block publishing when a table loses more than this share of its rows against the previous "
            "release in --out, or a table or input file is emptied (1 turns these checks off).",
        ),
    ] = config.MAX_ROW_DROP,
    executor: Annotated[
        MatchupExecutor, typer.Option("--executor", help="Where the unit_matchups partitions run (docs/dask.md).")
    ] = MatchupExecutor.IN_PROCESS,
    dask_workers: Annotated[
        int, typer.Option("--dask-workers", min=1, help="With --executor dask: worker processes of the local cluster.")
    ] = 2,
    dask_scheduler: Annotated[
        str | None,
        typer.Option(
            "--dask-scheduler", help="With --executor dask: a running scheduler's address (no local cluster)."
        ),
    ] = None,
    unit_matchups: Annotated[
        list[str] | None,
        typer.Option(
            "--unit-matchups",
            help="Scenario of the unit x unit table (unit_matchups); repeat for several. 'none': no unit x unit "
            "table (unit_vs_reference is always built). [default: default]",
        ),
    ] = None,
) -> None:
    """Build the dataset from inputs (default raw/) and publish a release (default curated/)."""
    from pipeline.run import run_pipeline

    scenarios = _matchup_scenarios(unit_matchups)
    with _matchup_executor(executor, dask_workers, dask_scheduler) as chosen:
        result = run_pipeline(
            inputs or [], out_dir or config.CURATED_DIR, stage=progress, max_row_drop=max_row_drop, executor=chosen,
            matchup_scenarios=scenarios,
        )  # fmt: skip
    if result.reused:
        out.print(f"unchanged: {result.version} reused -> {escape(str(result.release))}", highlight=False)
        return
    if result.inputs_from_cache:
        console.print(f"inputs: {len(result.inputs_parsed)} parsed, {len(result.inputs_from_cache)} from the cache")
    for kind, (computed, cached) in result.partitions.items():
        recosted = result.recosted.get(kind, 0)
        if cached or recosted:
            again = f", {recosted} re-costed" if recosted else ""
            console.print(f"{kind}: {computed} partitions computed{again}, {cached} from the cache")
    out.print(f"published [bold]{result.version}[/] -> {escape(str(result.release))}")
    _print_counts(result.row_counts)


def _matchup_scenarios(names: list[str] | None) -> tuple[str, ...]:
    """The scenarios of `--unit-matchups` (checked before any work); 'none' alone: no table."""
    from pipeline.damage.scenarios import SCENARIO_DEFINITIONS

    if not names:
        return config.MATCHUP_SCENARIOS
    if names == ["none"]:
        return ()
    unknown = [n for n in names if n not in SCENARIO_DEFINITIONS]
    if unknown:
        known = ", ".join(["none", *SCENARIO_DEFINITIONS])
        raise typer.BadParameter(f"unknown scenario {unknown[0]!r} (one of: {known})", param_hint="--unit-matchups")
    return tuple(dict.fromkeys(names))


@contextmanager
def _matchup_executor(name: MatchupExecutor, workers: int, scheduler: str | None) -> Iterator[Any]:
    """None (in process), or a Dask executor whose cluster or connection lives as long as the run."""
    if name is MatchupExecutor.IN_PROCESS:
        yield None
        return
    from pipeline.matchups.dask_executor import DaskExecutor

    with DaskExecutor(scheduler, workers) as dask:
        yield dask


def _print_counts(counts: dict[str, int]) -> None:
    table = Table("table", "rows")
    for name, rows in sorted(counts.items()):
        table.add_row(name, f"{rows:,}")
    out.print(table)


@command(app, "parse")
def parse(
    paths: Annotated[list[Path], typer.Argument(help="Input files or folders.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print counts as JSON.")] = False,
) -> None:
    """Parse inputs only and print record counts per table (nothing is written)."""
    from pipeline.sources.registry import read_inputs

    with progress("parse"):
        dataset = read_inputs(paths).dataset
    counts = dataset.counts()
    if as_json:
        out.print_json(json.dumps(counts))
    else:
        _print_counts(counts)


@command(fetch_app, "wahapedia", stage="fetch wahapedia")
def fetch_wahapedia_cmd(
    into: Annotated[Path, typer.Option("--into", help="Folder to download into.")] = config.RAW_WAHAPEDIA_DIR,
    base_url: Annotated[str, typer.Option("--base-url", help="Where the export lives.")] = config.WAHAPEDIA_BASE_URL,
) -> None:
    """Download the Wahapedia export politely (conditional requests, retries, atomic writes)."""
    from pipeline.fetch import fetch_wahapedia

    with progress("fetch wahapedia"):
        report = fetch_wahapedia(base_url, into)
    out.print(report.summary(), markup=False, highlight=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(EXIT_ERROR)


@command(fetch_app, "bsdata", stage="fetch bsdata")
def fetch_bsdata_cmd(
    into: Annotated[Path, typer.Option("--into", help="Folder of catalogues to replace.")] = config.RAW_BSDATA_DIR,
    ref: Annotated[str, typer.Option("--ref", help="Git branch, tag or commit.")] = config.BSDATA_REF,
    base_url: Annotated[
        str, typer.Option("--base-url", help="Archives live at BASE/REF.tar.gz.")
    ] = config.BSDATA_ARCHIVE_BASE_URL,
) -> None:
    """Download the BSData catalogues of a ref; the folder is replaced only if the new set parses."""
    from pipeline.fetch import fetch_bsdata

    with progress("fetch bsdata"):
        report = fetch_bsdata(into, ref=ref, base_url=base_url)
    out.print(report.summary(), markup=False, highlight=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(EXIT_ERROR)


@command(app, "sql")
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run (read-only).")],
    release: Annotated[Path, typer.Option("--release", "-r", help="Release or output folder.")] = config.CURATED_DIR,
    as_json: Annotated[bool, typer.Option("--json", help="Rows as JSON lines.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Rows as CSV with a header line.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="Print at most this many rows.")] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.001, help="Stop the query after this many seconds.")
    ] = config.SQL_TIMEOUT_SECONDS,
    memory: Annotated[
        str, typer.Option("--memory", help="Memory limit of the query, e.g. 512MB or 2GB.")
    ] = config.SQL_MEMORY_LIMIT,
) -> None:
    """Run a read-only SQL query on a published release, sandboxed (see README).

    The table rounds floats to `config.SQL_FLOAT_DIGITS` decimals; --json and --csv print them whole.
    """
    import csv

    from pipeline.publish.query import run_query
    from pipeline.publish.sql_limits import SqlLimits

    if as_json and as_csv:
        raise PipelineError("choose one of --json and --csv")
    columns, rows = run_query(query, release, SqlLimits(timeout=timeout, memory=memory), max_rows=limit)
    if as_json:
        for row in rows:
            sys.stdout.write(json.dumps(dict(zip(columns, row, strict=True)), default=str) + "\n")
        return
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_csv_cell(v) for v in row] for row in rows)
        return
    table = Table(*columns)
    for row in rows:
        table.add_row(*[Text(_cell(v)) for v in row])
    out.print(table)


@command(app, "matchup")
def matchup(
    attacker: Annotated[
        str, typer.Argument(help="Attacking unit: a name or unit id; `Leader + Bodyguard` for an attached unit.")
    ],
    target: Annotated[str, typer.Argument(help="Target unit, the same way.")],
    scenario: Annotated[
        str, typer.Option("--scenario", "-s", help="default, half_range, charged, stationary, cover.")
    ] = "default",
    phase: Annotated[str | None, typer.Option("--phase", "-p", help="shooting or fight (default: both).")] = None,
    attacker_models: Annotated[
        int | None, typer.Option("--attacker-models", help="Attacker option (default: smallest).")
    ] = None,
    target_models: Annotated[
        int | None, typer.Option("--target-models", help="Target option (default: smallest).")
    ] = None,
    release: Annotated[Path, typer.Option("--release", "-r", help="Release or output folder.")] = config.CURATED_DIR,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per phase.")] = False,
) -> None:
    """Exact models-slain distribution of one unit attacking another, computed from a release's tables."""
    from pipeline.matchups.lookup import Release, find_unit, load_options, matchup, pick_option
    from pipeline.matchups.show import render
    from pipeline.publish.release import resolve_release
    from pipeline.units.model import Phase

    if scenario not in config.MATCHUP_REFERENCE_SCENARIOS:
        raise PipelineError(f"unknown scenario {scenario!r}; one of {', '.join(config.MATCHUP_REFERENCE_SCENARIOS)}")
    phases = [p for p in Phase if phase is None or p.value == phase]
    if not phases:
        raise PipelineError(f"unknown phase {phase!r}; shooting or fight")
    data = Release(resolve_release(release))
    units = data.read("units", ("unit_id", "name"))
    ids = (find_unit(units, attacker), find_unit(units, target))
    options = load_options(data, ids)
    pair = (pick_option(options, ids[0], attacker_models), pick_option(options, ids[1], target_models))
    if pair[1].target is None:
        raise PipelineError(f"{pair[1].name} cannot be a target: a model of it has no complete statline (T, Sv, W)")
    for each in phases:
        result = matchup(pair[0], pair[1], scenario, each)
        if as_json:
            row = (
                result.as_dict()
                if result
                else {
                    "attacker_unit_id": ids[0],
                    "target_unit_id": ids[1],
                    "phase": each.value,
                    "scenario": scenario,
                    "models_slain": None,
                }
            )
            sys.stdout.write(json.dumps(row) + "\n")
        elif result is None:
            out.print(
                Text(f"{pair[0].name} has no {'ranged' if each is Phase.SHOOTING else 'melee'} weapon ({each.value})")
            )
        else:
            render(result, out)


def _cell(value: Any) -> str:
    """A value in the table: NULL, floats rounded (trailing zeros dropped), the rest as text."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        text = f"{value:.{config.SQL_FLOAT_DIGITS}f}".rstrip("0").rstrip(".")
        return "0" if text in {"-0", ""} else text
    return str(value)


def _csv_cell(value: Any) -> str:
    """A value in CSV: empty for NULL, lists and maps as JSON, the rest as text."""
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


@command(app, "quality")
def quality(
    release: Annotated[Path, typer.Option("--release", "-r", help="Release or output folder.")] = config.CURATED_DIR,
    report_dir: Annotated[
        Path | None, typer.Option("--report", help="Write quality/ (summary.json + index.html) here.")
    ] = None,
) -> None:
    """Re-run the quality gates on a published release (read-only) and print what failed."""
    import duckdb

    from pipeline.publish.query import open_release
    from pipeline.quality import run_quality

    con = open_release(release)
    try:
        with progress("quality gates"):
            report = run_quality(con)
    except duckdb.Error as exc:  # a release whose tables cannot be read is bad input, not a bug
        raise PipelineError(str(exc)) from exc
    finally:
        con.close()
    if report_dir is not None:
        report.write(report_dir)
    summary = report.to_dict()
    out.print(
        f"{summary['expectations']} expectations: {summary['critical_failures']} critical failures, "
        f"{summary['warnings']} warnings",
        markup=False,
    )
    for table, outcome in report.failures("critical") + report.failures("warning"):
        out.print(f"  [{outcome.severity}] {outcome.describe(table)}", markup=False)
    if not report.passed:
        raise typer.Exit(EXIT_QUALITY)


@command(app, "diff")
def diff(
    old: Annotated[Path, typer.Argument(help="Older release (or output folder).")],
    new: Annotated[Path, typer.Argument(help="Newer release (or output folder).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the diff as JSON.")] = False,
    summary: Annotated[bool, typer.Option("--summary", help="Only rows added, removed, changed per table.")] = False,
) -> None:
    """What changed between two releases, per table, by stable id, field by field (not `line`, `provenance`)."""
    from pipeline.publish.diff import diff_releases, format_diff, format_summary

    diffs = diff_releases(old, new, fields=not summary)
    if as_json and summary:
        sys.stdout.write(json.dumps({d.table: d.counts() for d in diffs}, indent=1) + "\n")
    elif as_json:
        sys.stdout.write(json.dumps([d.as_json() for d in diffs if not d.empty], default=str, indent=1) + "\n")
    elif summary:
        sys.stdout.write(format_summary(diffs) + "\n")
    else:
        sys.stdout.write(format_diff(diffs) + "\n")  # plain lines: never wrapped, greppable


def entry() -> None:
    """The console script: the app, then the process's exit without the interpreter's teardown (`exit_now`)."""
    try:
        app()
    except SystemExit as done:
        exit_now(_exit_code(done.code))
    exit_now(0)


def _exit_code(code: object) -> int:
    """`sys.exit`'s rule: None is 0, an int itself, anything else printed to stderr and 1."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    entry()
