"""Cut a page export into its header, datasheet sections and glossary (docs/sources.md#page-exports)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.sources.page.lines import Fragment
from pipeline.sources.page.patterns import (
    CP_RE,
    DETACHMENT_LINE_RE,
    HEADER_RE,
    SOURCE_TAG_RE,
    STRAT_TYPE_RE,
    is_special_heading,
    is_title_like,
    section_marker,
)


@dataclass
class Section:
    name: str
    frags: list[Fragment] = field(default_factory=list)


@dataclass
class Segments:
    header: Fragment | None
    sections: list[Section]
    glossary: list[Fragment]


def stratagem_group_length(frags: list[Fragment], i: int) -> int:
    """Fragments forming one STRATAGEMS list entry at `i` (0 if none starts there).

    An entry whose type line ends in `Stratagem` is a glossary block, not a list entry.
    """

    def text(k: int) -> str:
        return frags[k].text if k < len(frags) else ""

    if CP_RE.match(text(i)) or not CP_RE.match(text(i + 1)) or not text(i):
        return 0
    kind = STRAT_TYPE_RE.match(text(i + 2))
    if kind is None:
        return 2
    if kind["suffix"]:
        return 0
    if SOURCE_TAG_RE.match(text(i + 3)) and not CP_RE.match(text(i + 4)):
        return 4
    return 3


def _is_detachment_name(frags: list[Fragment], i: int) -> bool:
    """A DETACHMENT ABILITY list name: a heading followed by another heading (the last
    heading before body text is the first glossary title)."""
    if i + 1 >= len(frags):
        return False
    here, after = frags[i].text, frags[i + 1].text
    return (
        is_title_like(here)
        and is_title_like(after)
        and not CP_RE.match(after)
        and not DETACHMENT_LINE_RE.match(after)
        and after.casefold() != here.casefold()
    )


class _Cutter:
    def __init__(self, frags: list[Fragment]) -> None:
        self.frags = frags
        self.sections: list[Section] = []
        self.current = Section("preamble")

    def open(self, name: str, first: Fragment | None = None) -> None:
        if self.current.frags or self.current.name != "preamble":
            self.sections.append(self.current)
        self.current = Section(name, [first] if first else [])

    def run(self, start: int) -> int:
        """Walk the datasheet part; return where the glossary starts."""
        i = start
        while i < len(self.frags):
            step = self._step(i)
            if step == 0:
                break
            i += step
        self.open("end")
        return i

    def _step(self, i: int) -> int:
        frag = self.frags[i]
        if self.current.name == "stratagems":
            n = stratagem_group_length(self.frags, i)
            if n:
                self.current.frags.extend(self.frags[i : i + n])
                return n
            if section_marker(frag.text) == "detachment_ability":
                self.open("detachment_ability", frag)
                return 1
            return 0
        if self.current.name == "detachment_ability":
            if _is_detachment_name(self.frags, i):
                self.current.frags.append(frag)
                return 1
            return 0
        return self._datasheet_step(i, frag)

    def _datasheet_step(self, i: int, frag: Fragment) -> int:
        marker = section_marker(frag.text)
        if marker is not None:
            self.open(marker, frag)
        elif stratagem_group_length(self.frags, i):
            self.open("stratagems")
            return self._step(i)
        elif self.current.name != "faction_keywords" and is_special_heading(frag.text):
            self.open("special", frag)
        else:
            self.current.frags.append(frag)
        return 1


def segment(frags: list[Fragment]) -> Segments:
    """Header (first line if it reads `Faction – Unit`), datasheet sections, glossary."""
    header = None
    if frags and HEADER_RE.match(frags[0].text) and section_marker(frags[0].text) is None:
        header = frags[0]
    cutter = _Cutter(frags)
    glossary_start = cutter.run(1 if header else 0)
    sections = [s for s in cutter.sections if s.frags]
    return Segments(header, sections, frags[glossary_start:])
