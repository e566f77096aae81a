"""Recursion without the call stack, so any XML nesting depth is walked: a recursive step is a generator
that `yield`s the sub-step it would call and is sent its result (docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

_T = TypeVar("_T")

#: A step returning `_T`: yields sub-steps (any return type), is sent their results.
Step = Generator[Any, Any, _T]


def run(step: Step[_T]) -> _T:
    """Drive `step` and every sub-step it yields to completion; its return value."""
    stack: list[Step[Any]] = [step]
    value: Any = None
    while True:
        try:
            pending = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                result: _T = stop.value
                return result
            value = stop.value
            continue
        stack.append(pending)
        value = None
