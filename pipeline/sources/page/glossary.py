"""The glossary after the datasheet: rule blocks, stratagem texts, detachment abilities
(judgement calls: docs/sources.md#page-judgement-calls)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.sources.page.context import PageContext
from pipeline.sources.page.lines import Fragment
from pipeline.sources.page.patterns import (
    BULLET_RE,
    CATEGORY_WORDS,
    CP_RE,
    DETACHMENT_LINE_RE,
    EXAMPLE_RE,
    STRAT_TYPE_RE,
    glossary_cuts,
    is_furniture,
    is_title_like,
)
from schemas.records import RuleBlock


@dataclass
class Block:
    title: Fragment
    lines: list[Fragment] = field(default_factory=list)
    all_caps_heading: bool = False
    kind: str = "rule"

    @property
    def is_stratagem(self) -> bool:
        return bool(self.lines) and CP_RE.match(self.lines[0].text) is not None

    @property
    def detachment(self) -> str | None:
        match = DETACHMENT_LINE_RE.match(self.lines[0].text) if self.lines else None
        return match["detachment"] if match else None

    def summary_closed(self) -> bool:
        """The block ends with summary bullets (not a list introduced by a colon)."""
        for bullets, frag in enumerate(reversed(self.lines)):
            if not BULLET_RE.match(frag.text):
                return bullets > 0 and not frag.text.endswith(":")
        return False


def _is_content(text: str | None) -> bool:
    return text is not None and not is_title_like(text) and not is_furniture(text)


def _starts_block(text: str, after: str | None) -> bool:
    if not is_title_like(text) or after is None:
        return False
    return bool(DETACHMENT_LINE_RE.match(after) or after.casefold() == text.casefold() or _is_content(after))


def _is_header_line(block: Block | None, text: str) -> bool:
    """`1CP` / `Core – ... Stratagem` / `X Detachment` right under a heading."""
    if block is None:
        return False
    if not block.lines:
        return bool(CP_RE.match(text) or DETACHMENT_LINE_RE.match(text))
    return len(block.lines) == 1 and block.is_stratagem and STRAT_TYPE_RE.match(text) is not None


def split_glossary(frags: list[Fragment], ctx: PageContext) -> list[Fragment]:
    """Cut glued texts apart; the result is the glossary's fragment sequence."""
    result: list[Fragment] = []
    for frag in frags:
        result += ctx.fragments.split(frag, glossary_cuts(frag.raw))
    return result


class _Grouper:
    """Walks the glossary fragments once, opening blocks and accounting for the rest."""

    def __init__(self, ctx: PageContext) -> None:
        self.ctx = ctx
        self.blocks: list[Block] = []
        self.current: Block | None = None
        self.in_furniture = False

    def feed(self, frag: Fragment, after: str | None) -> None:
        text, current = frag.text, self.current
        if is_furniture(text) or (self.in_furniture and text in CATEGORY_WORDS and not _is_content(after)):
            self.ctx.furniture(frag, "glossary furniture")
            self.in_furniture = True
        elif _is_header_line(current, text):
            assert current is not None
            current.lines.append(frag)
        elif current is not None and not current.lines and text.casefold() == current.title.text.casefold():
            self.ctx.duplicate(frag, f"heading {text!r} repeated")
            current.all_caps_heading = current.all_caps_heading or text.isupper()
        elif _starts_block(text, after):
            self.current = Block(frag, all_caps_heading=text.isupper())
            self.blocks.append(self.current)
            self.in_furniture = False
        else:
            self._content(frag)

    def _content(self, frag: Fragment) -> None:
        text, current = frag.text, self.current
        if is_title_like(text):
            self.ctx.quarantine([frag], "heading without text", "glossary")
        elif current is None:
            self.ctx.quarantine([frag], "glossary text before any heading", "glossary")
        elif current.summary_closed() and not (BULLET_RE.match(text) or EXAMPLE_RE.match(text)):
            self.ctx.quarantine([frag], "sentence after a rule's summary, without a heading", "glossary")
        else:
            current.lines.append(frag)


def find_blocks(frags: list[Fragment], ctx: PageContext) -> list[Block]:
    """Group glossary fragments into blocks; furniture and strays are accounted here."""
    grouper = _Grouper(ctx)
    for i, frag in enumerate(frags):
        grouper.feed(frag, frags[i + 1].text if i + 1 < len(frags) else None)
    return grouper.blocks


def classify(block: Block, faction_rules: set[str]) -> str:
    """Kind of a block: stratagem, detachment_ability, weapon_ability, faction_rule,
    core_ability (all-caps heading), or rule (core rules)."""
    if block.is_stratagem:
        return "stratagem"
    if block.detachment is not None:
        return "detachment_ability"
    if any("Weapons with [" in f.text for f in block.lines):
        return "weapon_ability"
    if block.title.text.casefold() in faction_rules:
        return "faction_rule"
    return "core_ability" if block.all_caps_heading else "rule"


def rule_block(block: Block, ctx: PageContext) -> RuleBlock:
    """Body (paragraphs and in-body lists), bullet summary, examples of a block.

    Fragments marked duplicate or quarantined (stratagem repeats) are left out.
    """
    lines = [f for f in block.lines if f.disposition not in {"duplicate", "quarantine"}]
    cut = len(lines)
    while cut > 0 and BULLET_RE.match(lines[cut - 1].text):
        cut -= 1
    if cut < len(lines) and cut > 0 and lines[cut - 1].text.endswith(":"):
        cut = len(lines)
    body, examples = [], []
    for frag in lines[:cut]:
        example = EXAMPLE_RE.match(frag.text)
        if example:
            examples.append(example["value"])
        else:
            body.append(frag.text)
    summary = [BULLET_RE.match(f.text)["value"] for f in lines[cut:]]  # type: ignore[index]
    return RuleBlock(
        source_id=ctx.source_id,
        line=block.title.line,
        title=block.title.text,
        body="\n".join(body),
        kind=block.kind,
        summary=summary,
        examples=examples,
    )
