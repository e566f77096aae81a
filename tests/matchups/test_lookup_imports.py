"""`dataslate matchup` starts light: its modules import none of the heavy libraries it does not use."""

from __future__ import annotations

import subprocess
import sys

#: Modules whose import alone costs more than the matchup's computation (pandas came in with pyarrow.dataset).
HEAVY = ("polars", "pandas", "duckdb", "great_expectations", "pyarrow.dataset", "pyarrow.compute", "schemas.records")
COMMAND_MODULES = ("pipeline.cli", "pipeline.matchups.lookup", "pipeline.matchups.show", "pipeline.publish.release")


def test_the_matchup_command_imports_nothing_heavy() -> None:
    code = f"import sys\nimport {', '.join(COMMAND_MODULES)}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.split() == []


def test_the_lazy_packages_still_export_their_names() -> None:
    import pipeline.damage
    import schemas

    assert {n for n in pipeline.damage.__all__ if getattr(pipeline.damage, n, None) is None} == set()
    assert {n for n in schemas.__all__ if getattr(schemas, n, None) is None} == set()
