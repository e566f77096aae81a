"""Running the suites with Great Expectations 1.x (imported here, lazily; `gx_memo` patches it per validation).

Why the care: importing GX takes about five seconds and switches on
`logging.captureWarnings(True)` for the whole process, and GX draws tqdm progress
bars by default. So GX is imported inside `GxRunner()` only, warnings capture is
switched back off, progress bars and analytics are disabled in the context config.
The context is ephemeral (in memory) and builds no Data Docs: nothing is written (docs/quality.md#report).
Each suite is validated by GX's own `Validator` on one shared batch definition: no per-table asset, suite
or validation definition is stored, and no result is serialised into a results store (docs/quality.md#speed).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import sys
import threading
import types
import warnings
from typing import Any

from pipeline.quality.gx_memo import memoised_gx
from pipeline.quality.report import ExpectationOutcome, distinct_sample, plain_value
from pipeline.quality.suites import SuiteSpec
from pipeline.runtime import start_background

#: SUMMARY keeps counts and a partial list of offending values (COMPLETE lists every row).
RESULT_FORMAT = {"result_format": "SUMMARY", "partial_unexpected_count": 50}


_early_import: threading.Thread | None = None


def start_gx_import() -> None:
    """Import GX on a daemon thread now (once per process), while the caller's work runs in native code, so
    that the quality stage does not wait for it (docs/quality.md#speed). Forks wait for it (`runtime.fork_pool`)."""
    global _early_import
    if _early_import is None:
        _early_import = start_background(_import_quietly, "gx-import")


def _import_quietly() -> None:
    """The early import; a failure is left for `import_gx` to raise where the stage runs."""
    with contextlib.suppress(Exception):  # raised again by the stage's own import
        import_gx()


def import_gx() -> Any:
    """Import GX (waiting for an early import) and undo its process-wide side effect on `warnings` logging."""
    if _early_import is not None and _early_import is not threading.current_thread():
        _early_import.join()
    for name in DEFERRED_MODULES:
        _defer_module(name)
    import great_expectations as gx

    _undo_warnings_capture()
    return gx


#: Modules GX imports with its expectations but calls only inside distribution expectations (KL divergence, KS
#: tests, their charts), which no suite uses: ≈ 0.9 and ≈ 0.25 s of GX's ≈ 2.3 s import (docs/quality.md#speed).
DEFERRED_MODULES = ("scipy.stats", "altair")


class _DeferredModule(types.ModuleType):
    """Stands in `sys.modules` for a module not imported yet: the first attribute looked up on it imports the
    module for real (in its place) and reads the attribute there. `importlib.util.LazyLoader` cannot serve:
    on Python 3.11 every later `import` statement reads the lazy module's `__spec__`, which runs it."""

    def __getattr__(self, attribute: str) -> Any:
        return getattr(_imported(self.__name__, self), attribute)


_deferred_lock = threading.Lock()


def _imported(name: str, stand_in: types.ModuleType) -> types.ModuleType:
    with _deferred_lock:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        return importlib.import_module(name)


def _defer_module(name: str) -> None:
    """Put a `_DeferredModule` for `name` in `sys.modules`; nothing if it is imported already or not installed."""
    if name not in sys.modules and importlib.util.find_spec(name) is not None:
        sys.modules[name] = _DeferredModule(name)


def _undo_warnings_capture() -> None:
    """`logging.captureWarnings(False)`, only while GX's capture is the active `showwarning` (a
    `catch_warnings` block may have put another back in the meantime)."""
    if getattr(warnings.showwarning, "__module__", None) == "logging":
        logging.captureWarnings(False)


def _context_config() -> Any:
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    return DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),
        data_docs_sites={},
    )


class GxRunner:
    """An ephemeral GX context with one pandas datasource and one batch definition, reused for every table.

    `memoise`: validate inside `gx_memo.memoised_gx` (same outcomes, a third less CPU; off only to compare).
    """

    def __init__(self, *, memoise: bool = True) -> None:
        self.gx = import_gx()
        self.memoise = memoise
        self.context = self.gx.get_context(project_config=_context_config(), mode="ephemeral")
        asset = self.context.data_sources.add_pandas("dataslate").add_dataframe_asset("table")
        self.batch_definition = asset.add_batch_definition_whole_dataframe("all")

    def validate(self, suite: SuiteSpec, frame: Any, key: tuple[str, ...] = ()) -> list[ExpectationOutcome]:
        """Run one suite on one table's pandas DataFrame; outcomes in the suite's order.

        `key` columns identify the offending rows in each outcome's `unexpected_rows`.
        """
        from great_expectations.core.expectation_suite import ExpectationSuite
        from great_expectations.validator.v1_validator import Validator

        validator = Validator(
            batch_definition=self.batch_definition,
            batch_parameters={"dataframe": frame},
            result_format={**RESULT_FORMAT, "unexpected_index_column_names": list(key)},
        )
        memo = memoised_gx() if self.memoise else contextlib.nullcontext()
        with warnings.catch_warnings(), memo:
            warnings.simplefilter("ignore", DeprecationWarning)
            result: Any = validator.validate_expectation_suite(ExpectationSuite(**suite.gx_dict()))
        by_label = {r.expectation_config.meta["label"]: r for r in result.results}
        return [outcome(by_label[e.label]) for e in suite.expectations]


def outcome(result: Any) -> ExpectationOutcome:
    """A GX ExpectationValidationResult -> our plain, JSON-ready outcome."""
    meta = result.expectation_config.meta
    error = exception_message(result.exception_info or {})
    details = result.result or {}
    unexpected = plain_value(details.get("partial_unexpected_list") or [])
    rows = plain_value(details.get("partial_unexpected_index_list") or [])
    count = details.get("unexpected_count")
    return ExpectationOutcome(
        expectation=meta["label"],
        severity=meta["severity"],
        success=bool(result.success) and error is None,
        element_count=plain_value(details.get("element_count")),
        unexpected_count=int(count) if count is not None else None,
        unexpected_sample=distinct_sample(unexpected),
        unexpected_rows=distinct_sample(rows),
        observed_value=plain_value(details.get("observed_value")),
        error=error,
        notes=meta.get("notes", ""),
    )


def exception_message(info: dict[str, Any]) -> str | None:
    """GX puts either one `{raised_exception, exception_message}` or one per failed metric."""
    if "raised_exception" in info:
        return str(info.get("exception_message")) if info["raised_exception"] else None
    messages = [str(v.get("exception_message")) for v in info.values() if isinstance(v, dict)]
    return "; ".join(sorted(set(messages))) or None
