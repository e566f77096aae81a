"""`dataslate` plus one command that fails on purpose, so a real process shows what the error handler prints.

Run as `python -m tests.failing_cli fail KIND [--stage NAME]`; registered through `pipeline.cli.command` like
every real command.
"""

from __future__ import annotations

from typing import Annotated

import typer

from pipeline.cli import app, command, progress
from pipeline.errors import PipelineError, QualityGateError

FAILURES: dict[str, Exception] = {
    "pipeline": PipelineError("wrong field count", path="raw/Datasheets.csv", line=7),
    "quality": QualityGateError("1 critical quality gate(s) failed: weapons: ap <= 0"),
    "unexpected": KeyError("no-such-column"),
}


@command(app, "fail")
def fail(
    kind: str,
    stage: Annotated[str | None, typer.Option("--stage", help="Fail inside this stage.")] = None,
) -> None:
    """Raise FAILURES[kind], inside a stage when one is named."""
    if stage is None:
        raise FAILURES[kind]
    with progress(stage):
        raise FAILURES[kind]


if __name__ == "__main__":
    app()
