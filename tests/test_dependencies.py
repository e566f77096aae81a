"""Every third-party module the code imports is declared in pyproject and pinned in a lock.

pipeline/ and schemas/ may use runtime dependencies only (requirements.lock); tests/ and bench/ may
use the dev group too (requirements-dev.lock).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = {"pipeline", "schemas", "tests", "bench"}
RUNTIME, DEV = "requirements.lock", "requirements-dev.lock"
SCOPES = {"pipeline": (RUNTIME,), "schemas": (RUNTIME,), "tests": (RUNTIME, DEV), "bench": (RUNTIME, DEV)}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def imported_modules(folder: str) -> frozenset[str]:
    """Top-level names of every absolute import, at module level or inside functions."""
    names: set[str] = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return frozenset(names - FIRST_PARTY - set(sys.stdlib_module_names))


@cache
def distributions(module: str) -> frozenset[str]:
    return frozenset(normalise(d) for d in _installed().get(module, []))


@cache
def _installed() -> Mapping[str, list[str]]:
    """Import name -> distributions, from the installed metadata (slow: read once)."""
    return packages_distributions()


@cache
def pinned(lock: str) -> set[str]:
    text = (ROOT / lock).read_text(encoding="utf-8")
    return {normalise(m.group(1)) for m in re.finditer(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", text, re.MULTILINE)}


@cache
def requirements(group: str) -> list[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[str] = data["project"]["dependencies"] if group == "runtime" else data["dependency-groups"][group]
    return found


def declared(group: str) -> set[str]:
    return {normalise(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements(group)}


@cache
def optional() -> set[str]:
    """Distributions of the optional extras (`dataslate[dask]`): pipeline/ may import them lazily; the dev group
    pins them so the tests run them."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = data["project"].get("optional-dependencies", {}).values()
    return {normalise(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for group in extras for r in group}


@pytest.mark.parametrize("folder", list(SCOPES))
def test_every_import_is_pinned_in_its_locks(folder: str) -> None:
    allowed = set().union(*(pinned(lock) for lock in SCOPES[folder])) | (optional() & pinned(DEV))
    unpinned = {m: sorted(distributions(m)) for m in imported_modules(folder) if not distributions(m) & allowed}
    assert unpinned == {}


@pytest.mark.parametrize("folder", list(SCOPES))
def test_every_import_is_declared(folder: str) -> None:
    allowed = declared("runtime") | optional() | (declared("dev") if DEV in SCOPES[folder] else set())
    undeclared = {m: sorted(distributions(m)) for m in imported_modules(folder) if not distributions(m) & allowed}
    assert undeclared == {}


def test_optional_extras_are_pinned_in_the_dev_lock() -> None:
    assert optional() == {"dask"} and optional() <= pinned(DEV)


@pytest.mark.parametrize("requirement", requirements("runtime"))
def test_runtime_requirements_are_ranges(requirement: str) -> None:
    assert ">=" in requirement and "==" not in requirement
