"""PEP 562 lazy exports, for packages whose names should cost nothing until first used (`dataslate matchup`
must not import Polars or every record model at start-up)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any


def lazy_getattr(package: str, names: Sequence[str], modules: Sequence[str]) -> Callable[[str], Any]:
    """A module `__getattr__` that finds `name` in the package's `modules` (in order) on first use, then keeps
    it in the package's namespace so the lookup happens once."""
    exported = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name in exported:
            for module in modules:
                found = getattr(importlib.import_module(f"{package}.{module}"), name, None)
                if found is not None:
                    vars(importlib.import_module(package))[name] = found
                    return found
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
