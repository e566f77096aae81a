"""Stratagems of a page export: the STRATAGEMS list merged with the glossary stratagem blocks, one
page-independent id per stratagem (judgement calls: docs/sources.md#page-judgement-calls)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from pipeline.ids import slug
from pipeline.sources.page.context import PageContext
from pipeline.sources.page.glossary import Block
from pipeline.sources.page.lines import Fragment
from pipeline.sources.page.patterns import CP_RE, LABEL_RE, NOTE_RE, SOURCE_TAG_RE, STRAT_TYPE_RE
from pipeline.sources.page.segments import stratagem_group_length
from schemas.records import DatasheetStratagem, Stratagem

_FIELDS = {"WHEN": "when", "TARGET": "target", "EFFECT": "effect", "RESTRICTIONS": "restrictions"}


def stratagem_id(detachment: str | None, name: str) -> str:
    return f"strat:{slug(detachment or 'unknown')}:{slug(name)}"


@dataclass
class Draft:
    """One stratagem of the page while its list entry and glossary block are merged."""

    name: str
    line: int
    detachment: str | None = None
    type: str | None = None
    cp: int | None = None
    source_tag: str | None = None
    faction: str | None = None
    listed: bool = False
    texts: dict[str, str] = field(default_factory=dict)
    frags: list[Fragment] = field(default_factory=list)

    @property
    def stratagem_id(self) -> str:
        return stratagem_id(self.detachment, self.name)


def _head(name: str, frags: list[Fragment]) -> Draft:
    """Name, CP and `Detachment – Type` of a list entry or a block (frags after the name)."""
    draft = Draft(name=name, line=frags[0].line if frags else 0)
    cp = CP_RE.match(frags[0].text) if frags else None
    draft.cp = int(cp["cp"]) if cp else None
    kind = STRAT_TYPE_RE.match(frags[1].text) if len(frags) > 1 else None
    if kind:
        draft.detachment, draft.type = kind["detachment"].strip(), kind["type"].strip()
    return draft


def parse_list(frags: list[Fragment], ctx: PageContext) -> dict[str, Draft]:
    """The STRATAGEMS list: NAME / nCP / `Detachment – Type` / optional source tag."""
    drafts: dict[str, Draft] = {}
    i = 0
    if frags and frags[0].text == "STRATAGEMS":
        ctx.furniture(frags[0], "section heading")
        i = 1
    while i < len(frags):
        n = stratagem_group_length(frags, i)
        if n == 0:
            ctx.quarantine([frags[i]], "not a stratagem list entry", "stratagems")
            i += 1
            continue
        draft = _list_entry(frags[i : i + n], ctx)
        if draft.stratagem_id in drafts:
            for frag in draft.frags:
                ctx.duplicate(frag, f"stratagem {draft.name!r} listed again")
        else:
            drafts[draft.stratagem_id] = draft
        i += n
    return drafts


def _list_entry(group: list[Fragment], ctx: PageContext) -> Draft:
    draft = _head(group[0].text, group[1:])
    draft.line, draft.listed, draft.frags = group[0].line, True, group
    tag = group[3].text if len(group) == 4 else None
    draft.source_tag = tag if tag and SOURCE_TAG_RE.match(tag) else None
    draft.faction = None if draft.source_tag else ctx.faction
    return draft


def read_block(block: Block, ctx: PageContext) -> Draft:
    """A glossary stratagem block -> a draft with legend / when / target / effect / restrictions."""
    draft = _head(block.title.text, block.lines)
    draft.line = block.title.line
    seen: set[str] = set()
    last: str | None = None
    for frag in block.lines[2 if draft.detachment else 1 :]:
        if frag.text in seen:
            ctx.duplicate(frag, f"repeated line of stratagem {draft.name!r}")
        else:
            seen.add(frag.text)
            last = _read_line(frag, draft, last, ctx)
    return draft


def _read_line(frag: Fragment, draft: Draft, last: str | None, ctx: PageContext) -> str | None:
    """One line of a stratagem block into its field; returns the field the next plain line
    continues (plain lines before the first label are the legend)."""
    text = frag.text
    label, note = LABEL_RE.match(text), NOTE_RE.match(text)
    if label:
        key = _FIELDS[label["label"]]
        if key in draft.texts:
            ctx.quarantine([frag], f"second {label['label']} line with a different text", "glossary")
            return last
        draft.texts[key] = label["value"]
        return key
    key = "effect" if note else (last or "legend")
    draft.texts[key] = f"{draft.texts[key]}\n{text}" if key in draft.texts else text
    return last


def merge_page(listed: dict[str, Draft], blocks: list[Draft], ctx: PageContext) -> list[Draft]:
    """One draft per stratagem id: list entry first, its glossary block fills the texts."""
    merged = dict(listed)
    for block in blocks:
        draft = merged.get(block.stratagem_id)
        if draft is None:
            merged[block.stratagem_id] = block
            continue
        for key, value in block.texts.items():
            if key not in draft.texts:
                draft.texts[key] = value
            elif draft.texts[key] != value:
                ctx.notes.append(f"stratagem {draft.name!r}: two glossary blocks differ in {key}")
        if block.cp is not None and draft.cp not in (None, block.cp):
            ctx.notes.append(f"stratagem {draft.name!r}: list says {draft.cp}CP, glossary {block.cp}CP")
    return list(merged.values())


def emit_stratagems(drafts: list[Draft], ctx: PageContext) -> None:
    """Stratagem records, and a datasheet link for every listed one."""
    for draft in drafts:
        record = ctx.build(Stratagem, partial(_record, draft, ctx), draft.frags, "stratagems")
        if record is None:
            ctx.notes.append(f"stratagem {draft.name!r} at line {draft.line} failed validation")
            continue
        ctx.emit(record, draft.frags)
        if draft.listed and ctx.datasheet_id is not None:
            link = DatasheetStratagem(
                datasheet_id=ctx.datasheet_id,
                stratagem_id=draft.stratagem_id,
                source_id=ctx.source_id,
                line=draft.line,
            )
            ctx.emit(link, [])


def _record(draft: Draft, ctx: PageContext) -> Stratagem:
    return Stratagem(
        stratagem_id=draft.stratagem_id,
        source_id=ctx.source_id,
        line=draft.line or None,
        name=draft.name,
        cp=draft.cp,
        detachment=draft.detachment,
        type=draft.type,
        faction=draft.faction,
        source_tag=draft.source_tag,
        **draft.texts,
    )
