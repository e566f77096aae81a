"""Lines of a page export cut into fragments, and the fragment ledger that gives each one a disposition,
so tests can prove no input text is lost (docs/sources.md#page-lines-fragments-and-accounting)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from pipeline.normalise.text import decode_lines_strict

Disposition = Literal["record", "furniture", "duplicate", "quarantine"]


def decode_lines(data: bytes) -> tuple[str, dict[int, str]]:
    """A file's text, and its lines that are not UTF-8: 1-based number -> the line, bytes escaped.

    Decoding is strict and per line, so a bad byte costs its own line, never the file, and
    never becomes a U+FFFD in a published record. Those lines are blank in the text (the
    other lines keep their numbers); the escaped form shows the bad bytes in the quarantine.
    """
    texts, bad = decode_lines_strict(data)
    undecodable = {n: texts[n - 1].rstrip("\r") for n in sorted(bad)}
    for number in bad:
        texts[number - 1] = ""
    return "\n".join(texts), undecodable


@dataclass(eq=False)
class Fragment:
    """A slice of one input line (1-based `line`); `raw` is exactly what the line holds."""

    line: int
    raw: str
    disposition: Disposition | None = None
    target: str = ""
    reason: str = ""
    section: str = ""

    @property
    def text(self) -> str:
        return self.raw.strip()


@dataclass
class FragmentLedger:
    """Every non-empty input line, cut into fragments, each with one disposition."""

    lines: list[str]
    _by_line: dict[int, list[Fragment]] = field(default_factory=dict)

    @classmethod
    def from_text(cls, text: str) -> FragmentLedger:
        lines = [line.rstrip("\r") for line in text.split("\n")]
        ledger = cls(lines)
        for number, line in enumerate(lines, start=1):
            if line.strip():
                ledger._by_line[number] = [Fragment(number, line.strip())]
        return ledger

    def add_undecodable(self, number: int, escaped: str) -> Fragment:
        """Take back a line `decode_lines` blanked (`escaped` is its text): one fragment, so the
        line is counted in `rows_in` and can be quarantined like any other."""
        self.lines[number - 1] = escaped
        frag = Fragment(number, escaped.strip())
        self._by_line[number] = [frag]
        return frag

    def fragments(self) -> list[Fragment]:
        """All fragments in input order."""
        return [frag for number in sorted(self._by_line) for frag in self._by_line[number]]

    def line_fragments(self, number: int) -> list[Fragment]:
        return list(self._by_line.get(number, []))

    def split(self, frag: Fragment, cuts: list[int]) -> list[Fragment]:
        """Replace `frag` by its slices at `cuts` (positions in `frag.raw`); empty slices vanish
        only when they hold nothing at all, so the slices always join back to `frag.raw`."""
        bounds = [0, *sorted({c for c in cuts if 0 < c < len(frag.raw)}), len(frag.raw)]
        pieces = [frag.raw[a:b] for a, b in pairwise(bounds)]
        parts = [Fragment(frag.line, piece, section=frag.section) for piece in pieces if piece]
        siblings = self._by_line[frag.line]
        at = siblings.index(frag)
        siblings[at : at + 1] = parts
        return parts

    def mark(self, frag: Fragment, disposition: Disposition, target: str = "", reason: str = "") -> None:
        frag.disposition = disposition
        frag.target = target
        frag.reason = reason

    def unplaced(self) -> list[Fragment]:
        return [frag for frag in self.fragments() if frag.disposition is None]

    # -- accounting ---------------------------------------------------------------------------
    @property
    def rows_in(self) -> int:
        """Non-empty input lines."""
        return len(self._by_line)

    def quarantined_lines(self) -> set[int]:
        """A line counts as quarantined when any of its fragments is (its raw text is kept there)."""
        return {f.line for f in self.fragments() if f.disposition == "quarantine"}

    def line_kinds(self) -> Counter[str]:
        """Per line: `quarantine` if any fragment is, else the disposition all fragments share,
        else `record` (a line mixing record and furniture text still fed a record)."""
        kinds: Counter[str] = Counter()
        for frags in self._by_line.values():
            found = {f.disposition for f in frags}
            if "quarantine" in found or None in found:
                kinds["quarantine"] += 1
            elif len(found) == 1:
                kinds[str(found.pop())] += 1
            else:
                kinds["record"] += 1
        return kinds

    def joins_back(self) -> bool:
        """Every line's fragments concatenate to the stripped line: no text was dropped."""
        return all(
            "".join(f.raw for f in self._by_line.get(n, [])) == line.strip()
            for n, line in enumerate(self.lines, start=1)
        )
