"""Model counts from unit composition text (`1 Assault Terminator Sergeant`, `4-9 Assault Terminators`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.normalise.text import fold_dashes
from pipeline.reconcile.keys import name_key, singular_key

_LINE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?\s+(.+?)\s*:?$")


@dataclass(frozen=True)
class Counted:
    """One composition line: between `low` and `high` models named `words`."""

    low: int
    high: int
    words: tuple[str, ...]


def parse_lines(texts: Iterable[str]) -> list[Counted]:
    """The lines that read `<n> <models>` or `<n>-<m> <models>`; an `OR` line means alternatives: none."""
    found = []
    for text in texts:
        first = fold_dashes(text.replace("\u2011", "-")).split("\n")[0].strip()
        match = _LINE.match(first)
        if match is None:
            if first.casefold().strip(":") in {"or", "one of the following"}:
                return []  # alternative compositions: no one count per model
            continue
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        found.append(Counted(low, high, tuple(singular_key(name_key(match.group(3))).split())))
    return found


def counts_for(words: tuple[str, ...], lines: Sequence[Counted]) -> tuple[int, int] | None:
    """(fewest, most) of the profile named `words`: its line by exact name, else the one line whose
    name starts or ends with it (`Terminator` in `Assault Terminators`)."""
    exact = [c for c in lines if c.words == words]
    if len(exact) == 1:
        return exact[0].low, exact[0].high
    n = len(words)
    near = [c for c in lines if n and n < len(c.words) and (c.words[:n] == words or c.words[-n:] == words)]
    return (near[0].low, near[0].high) if len(near) == 1 else None
