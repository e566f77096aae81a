"""Structured exceptions: every pipeline error says which file, line and context."""

from __future__ import annotations

from pathlib import Path


class PipelineError(Exception):
    """Root of every error the pipeline raises on purpose.

    Carries where it happened so the CLI can print one clear message.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.context = context

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}"
        text = f"{where}: {self.message}" if where else self.message
        return f"{text} ({self.context})" if self.context else text


class InputFormatError(PipelineError):
    """An input path whose format cannot be detected or read at all."""


class QualityGateError(PipelineError):
    """A critical quality expectation failed: nothing is published."""


class PublishError(PipelineError):
    """A release could not be written or switched."""


class FetchError(PipelineError):
    """The scraper could not fetch a file (after its retries)."""


class ReleaseNotFoundError(PipelineError):
    """A release folder or its DuckDB file does not exist."""
