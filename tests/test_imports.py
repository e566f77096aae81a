"""Every module of pipeline/ and schemas/ imports first, on its own: an import cycle between packages only shows
when the import starts on its side (a run importing `pipeline.store` before `pipeline.publish` hides one that
`import pipeline.publish.writer` alone meets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Run in a fresh interpreter: for each module, our packages are dropped from `sys.modules` and it is imported
#: first (the libraries stay loaded, so this takes seconds, not one interpreter per module).
_CHECK = """
import importlib, json, sys
failed = {}
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("pipeline", "schemas")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = repr(exc)
print(json.dumps(failed))
"""


def module_names() -> list[str]:
    names = []
    for package in ("pipeline", "schemas"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_module_imports_first_on_its_own() -> None:
    names = module_names()
    assert "pipeline.publish.writer" in names and "pipeline.store" in names and len(names) > 200
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, *names], capture_output=True, text=True, cwd=ROOT, check=True, timeout=600
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {}
