"""The explorer site rendered by the run's site helper process (`helper_process.py`) while the run goes on: it
reads the release's `<table>.parquet` files, which the store wrote from the run's frames, so the pages are those
rendered here (docs/scaling.md#the-helper-process). Without a helper, or if it is gone, the site renders here."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

import polars as pl

from pipeline.helper_process import HelperWarning, running_helper
from pipeline.publish.site.build import SiteReport, write_site


class SiteRendering:
    """A site being rendered: `report()` waits for it (once). Leaving the block without asking drains the
    helper's reply (a run the gates stopped), so that the helper serves the next request."""

    def __init__(self, frames: Mapping[str, pl.DataFrame], release: Path, version: str) -> None:
        self.frames, self.release, self.version = frames, release, version
        self._wait: Callable[[], SiteReport] | None = None
        self._report: SiteReport | None = None

    def start(self, stored: bool) -> SiteRendering:
        helper = running_helper("site") if stored else None
        if helper is not None:
            try:
                self._wait = helper.site(self.release, self.version)
            except OSError as exc:
                warnings.warn(f"site helper gone ({exc!r}): the site renders here", HelperWarning, stacklevel=2)
        return self

    def report(self) -> SiteReport:
        if self._report is None:
            self._report = self._received() if self._wait is not None else self._here()
        return self._report

    def _received(self) -> SiteReport:
        wait, self._wait = self._wait, None
        assert wait is not None
        try:
            return wait()
        except (OSError, EOFError) as exc:
            warnings.warn(f"site helper gone ({exc!r}): the site renders here", HelperWarning, stacklevel=2)
            return self._here()

    def _here(self) -> SiteReport:
        return write_site(self.frames, self.release, self.version)

    def __enter__(self) -> SiteRendering:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._wait is not None:
            wait, self._wait = self._wait, None
            with contextlib.suppress(Exception):
                wait()


def start_site(frames: Mapping[str, pl.DataFrame], release: Path, version: str, stored: bool) -> SiteRendering:
    """The site's rendering, started on the site helper when `stored` (the store wrote every `<table>.parquet`
    from `frames`) and one runs; else it renders here when its report is asked for. Use it as a context."""
    return SiteRendering(frames, release, version).start(stored)
