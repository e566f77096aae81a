"""GX is imported with the modules it needs only for distribution expectations deferred: they stand in
`sys.modules` until something reads one of their attributes, which imports them for real. Each case runs in a
fresh interpreter (the test process may have imported them already)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline import config

_DEFERRED = """
import sys
from pipeline.quality.gx_runner import DEFERRED_MODULES, import_gx
import_gx()
print(sorted(type(sys.modules[name]).__name__ for name in DEFERRED_MODULES))
print("scipy.stats._stats_py" in sys.modules)
"""

_USED = """
from pipeline.quality.gx_runner import import_gx
import_gx()
import sys
from scipy import stats
print(round(float(stats.entropy([0.5, 0.5], [0.25, 0.75])), 6), type(sys.modules["scipy.stats"]).__name__)
import altair as alt
print(alt.Chart.__name__, type(sys.modules["altair"]).__name__)
"""

_IMPORTED_BEFORE = """
import sys
import scipy.stats
from pipeline.quality.gx_runner import import_gx
import_gx()
print(type(sys.modules["scipy.stats"]).__name__)
"""


def _run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=config.REPO_ROOT, check=True
    )
    return done.stdout.split("\n")[:-1]


@pytest.mark.parametrize(
    ("code", "printed"),
    [
        (_DEFERRED, ["['_DeferredModule', '_DeferredModule']", "False"]),  # GX imported, neither module run
        (_USED, ["0.143841 module", "Chart module"]),  # the first attribute read imports the real module
        (_IMPORTED_BEFORE, ["module"]),  # a module imported already is left as it is
    ],
)
def test_distribution_modules_are_imported_when_first_used(code: str, printed: list[str]) -> None:
    assert _run(code) == printed
