"""Two pure GX computations memoised for the length of one validation (docs/quality.md#speed).

GX 1.x rebuilds an expectation's `configuration` (a pydantic dict, a regex on the class name, a new
`ExpectationConfiguration`) on every access, about 120 times per expectation, and rebuilds an expectation
from a configuration (`to_domain_obj`) about 14 times. Neither object is changed while GX validates, so
inside `memoised_gx()` each is computed once per object: keyed by the object's identity, the object
held so that its identity cannot be reused, the originals put back and the cache dropped on exit. Only on
the GX versions whose validation path was read for this (`VERIFIED_GX`); on others GX runs as it is.
Not for concurrent validations: the patch is on GX's classes, process-wide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: GX versions whose validation path was checked: no caller changes an expectation or the configuration
#: it gets back from `configuration` / `to_domain_obj` (only `save()` and Cloud rendering do).
VERIFIED_GX = ("1.24.",)


def memo_supported(version: str) -> bool:
    """Whether `memoised_gx` patches GX of this version."""
    return version.startswith(VERIFIED_GX)


def _once_per_object(compute: Callable[[Any], Any], cache: dict[int, tuple[Any, Any]]) -> Callable[[Any], Any]:
    def memoised(obj: Any) -> Any:
        hit = cache.get(id(obj))
        if hit is None:
            hit = cache[id(obj)] = (obj, compute(obj))
        return hit[1]

    return memoised


@contextmanager
def memoised_gx() -> Iterator[bool]:
    """Memoise `Expectation.configuration` and `ExpectationConfiguration.to_domain_obj` inside the block;
    yields whether it did (False: a GX version not verified)."""
    import great_expectations as gx
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    if not memo_supported(gx.__version__):
        yield False
        return
    configuration = Expectation.__dict__["configuration"]
    to_domain_obj = ExpectationConfiguration.__dict__["to_domain_obj"]
    cache: dict[int, tuple[Any, Any]] = {}
    domain_cache: dict[int, tuple[Any, Any]] = {}
    setattr(Expectation, "configuration", property(_once_per_object(configuration.fget, cache)))  # noqa: B010
    setattr(ExpectationConfiguration, "to_domain_obj", _once_per_object(to_domain_obj, domain_cache))  # noqa: B010
    try:
        yield True
    finally:
        setattr(Expectation, "configuration", configuration)  # noqa: B010
        setattr(ExpectationConfiguration, "to_domain_obj", to_domain_obj)  # noqa: B010
        cache.clear()
        domain_cache.clear()
