"""Three pure GX computations memoised for the length of one validation (docs/quality.md#speed).

GX 1.x rebuilds an expectation's `configuration` (a pydantic dict, a regex on the class name, a new
`ExpectationConfiguration`) on every access, about 120 times per expectation, and rebuilds an expectation
from a configuration (`to_domain_obj`) about 14 times. Neither object is changed while GX validates, so
inside `memoised_gx()` each is computed once per object: keyed by the object's identity, the object
held so that its identity cannot be reused, the originals put back and the cache dropped on exit. The
third is the id of a metric's kwargs (`IDDict.to_id`: every value made JSON-serialisable, dumped and
hashed), asked twice for each of the ≈ 17 k metric configurations a whole-corpus run builds from a few
hundred distinct kwargs: keyed by the kwargs' content when it is only strings, numbers, booleans, None,
lists, tuples and dicts of them (`content_key`, with each value's type, so `1`, `1.0` and `True` differ);
any other value is left to GX. Only on the GX versions whose validation path was read for this
(`VERIFIED_GX`); on others GX runs as it is. Not for concurrent validations: the patch is on GX's classes,
process-wide.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
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


_PLAIN = (str, int, float, bool, type(None))


def content_key(value: Any) -> Hashable | None:
    """A hashable key equal for equal plain content of the same types; None when `value` holds anything else."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is list or kind is tuple:
        items = tuple(content_key(v) for v in value)
        return None if None in items else (kind, items)
    if kind is dict:
        pairs = tuple((content_key(k), content_key(v)) for k, v in value.items())
        return None if any(None in pair for pair in pairs) else (kind, pairs)
    return None


def _memoised_to_id(to_id: Callable[..., Any], cache: dict[Hashable, Any]) -> Callable[..., Any]:
    def memoised(self: Any, id_keys: Any = None, id_ignore_keys: Any = None) -> Any:
        key = content_key(dict(self)) if id_keys is None and id_ignore_keys is None else None
        if key is None:
            return to_id(self, id_keys, id_ignore_keys)
        key = (type(self), key)
        if key not in cache:
            cache[key] = to_id(self)
        return cache[key]

    return memoised


@contextmanager
def memoised_gx() -> Iterator[bool]:
    """Memoise `Expectation.configuration`, `ExpectationConfiguration.to_domain_obj` and `IDDict.to_id`
    inside the block; yields whether it did (False: a GX version not verified)."""
    import great_expectations as gx
    from great_expectations.core.id_dict import IDDict
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    if not memo_supported(gx.__version__):
        yield False
        return
    configuration = Expectation.__dict__["configuration"]
    to_domain_obj = ExpectationConfiguration.__dict__["to_domain_obj"]
    cache: dict[int, tuple[Any, Any]] = {}
    domain_cache: dict[int, tuple[Any, Any]] = {}
    to_id = IDDict.__dict__["to_id"]
    id_cache: dict[Hashable, Any] = {}
    setattr(Expectation, "configuration", property(_once_per_object(configuration.fget, cache)))  # noqa: B010
    setattr(ExpectationConfiguration, "to_domain_obj", _once_per_object(to_domain_obj, domain_cache))  # noqa: B010
    setattr(IDDict, "to_id", _memoised_to_id(to_id, id_cache))  # noqa: B010
    try:
        yield True
    finally:
        setattr(Expectation, "configuration", configuration)  # noqa: B010
        setattr(ExpectationConfiguration, "to_domain_obj", to_domain_obj)  # noqa: B010
        setattr(IDDict, "to_id", to_id)  # noqa: B010
        cache.clear()
        domain_cache.clear()
        id_cache.clear()
