"""The datasheet part of a page export: header, section dispatch, datasheet-level records
(docs/sources.md#page-judgement-calls)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.ids import slug
from pipeline.sources.page import sections
from pipeline.sources.page.context import PageContext
from pipeline.sources.page.glossary import Block
from pipeline.sources.page.lines import Fragment
from pipeline.sources.page.patterns import BULLET_RE, EXAMPLE_RE, HEADER_RE
from pipeline.sources.page.segments import Section
from pipeline.sources.page.stratagems import Draft, parse_list
from pipeline.sources.page.weapons import parse_weapon_table
from schemas.records import Datasheet, DatasheetDetachmentAbility, DetachmentAbility, ModelProfile

_NEEDS_NOTHING = {"stratagems", "detachment_ability"}


@dataclass
class SheetResult:
    info: sections.SheetInfo = field(default_factory=sections.SheetInfo)
    stratagems: dict[str, Draft] = field(default_factory=dict)
    detachment_names: list[Fragment] = field(default_factory=list)


def read_header(header: Fragment | None, ctx: PageContext) -> None:
    match = HEADER_RE.match(header.text) if header else None
    if match is None:
        ctx.notes.append("no `Faction – Unit` header line: datasheet sections quarantined")
        return
    ctx.faction, name = match["faction"].strip(), match["name"].strip()
    ctx.datasheet_id = f"page:{slug(ctx.faction)}:{slug(name)}"


def faction_rule_names(parts: list[Section]) -> set[str]:
    """Names on the ABILITIES `FACTION:` line (their glossary blocks are faction rules)."""
    names: set[str] = set()
    for section in parts:
        for frag in section.frags:
            if section.name == "abilities" and frag.text.startswith("FACTION:"):
                names |= {n.strip().casefold() for n in frag.text.partition(":")[2].split(",")}
    return names


def parse_sections(parts: list[Section], ctx: PageContext, vocabulary: re.Pattern[str]) -> SheetResult:
    result = SheetResult()
    for section in parts:
        if section.name == "preamble":
            ctx.quarantine(section.frags, "text before any datasheet section", section.name)
        elif ctx.datasheet_id is None and section.name not in _NEEDS_NOTHING:
            ctx.quarantine(section.frags, "no datasheet header: section has no datasheet", section.name)
        else:
            _dispatch(section, ctx, vocabulary, result)
    return result


def _dispatch(section: Section, ctx: PageContext, vocabulary: re.Pattern[str], result: SheetResult) -> None:
    name, frags, info = section.name, section.frags, result.info
    if name in {"ranged", "melee"}:
        parse_weapon_table(frags, name, ctx, vocabulary)
    elif name == "stratagems":
        result.stratagems.update(parse_list(frags, ctx))
    elif name == "detachment_ability":
        ctx.furniture(frags[0], "section heading")
        result.detachment_names += frags[1:]
    elif name in {"keywords", "faction_keywords"}:
        sections.parse_keywords(frags, ctx, info, faction=name == "faction_keywords")
    elif name in _SIMPLE:
        _SIMPLE[name](frags, ctx)
    elif name in _WITH_INFO:
        _WITH_INFO[name](frags, ctx, info)
    else:
        ctx.quarantine(frags, "text outside any datasheet section", name)


_SIMPLE = {
    "wargear": sections.parse_wargear,
    "abilities": sections.parse_abilities,
    "special": sections.parse_special,
}
_WITH_INFO = {
    "composition": sections.parse_composition,
    "damaged": sections.parse_damaged,
    "leader": sections.parse_leader,
}


def emit_detachment_abilities(names: list[Fragment], blocks: list[Block], ctx: PageContext) -> None:
    """One record per glossary detachment block and per listed name; listed ones are
    linked to the datasheet."""
    by_name = {b.title.text.casefold(): b for b in blocks if b.kind == "detachment_ability"}
    listed = {f.text.casefold() for f in names}
    for frag in names:
        _emit_detachment(frag.text, by_name.get(frag.text.casefold()), [frag], ctx)
    for key, block in by_name.items():
        if key not in listed:
            _emit_detachment(block.title.text, block, [], ctx)


def _emit_detachment(name: str, block: Block | None, frags: list[Fragment], ctx: PageContext) -> None:
    ability_id = f"detachment_ability:{slug(ctx.faction or 'unknown')}:{slug(name)}"
    legend, text = _detachment_texts(block)
    record = DetachmentAbility(
        detachment_ability_id=ability_id,
        source_id=ctx.source_id,
        line=frags[0].line if frags else (block.title.line if block else None),
        faction=ctx.faction,
        name=name,
        detachment=block.detachment if block else None,
        legend=legend,
        text=text,
    )
    if ctx.emit(record, frags) and frags and ctx.datasheet_id is not None:
        link = DatasheetDetachmentAbility(
            datasheet_id=ctx.datasheet_id,
            detachment_ability_id=ability_id,
            source_id=ctx.source_id,
            line=frags[0].line,
        )
        ctx.emit(link, [])


def _detachment_texts(block: Block | None) -> tuple[str | None, str | None]:
    """Legend = the first paragraph when more text follows it; text = the rest."""
    if block is None:
        return None, None
    rest = [f.text for f in block.lines[1:]]
    plain = rest and not (BULLET_RE.match(rest[0]) or EXAMPLE_RE.match(rest[0]))
    if plain and len(rest) >= 2:
        return rest[0], "\n".join(rest[1:])
    return None, "\n".join(rest) or None


def emit_datasheet(header: Fragment | None, info: sections.SheetInfo, ctx: PageContext) -> None:
    """Datasheet, keywords and model profiles (stats NULL: the export has no statline)."""
    if ctx.datasheet_id is None or header is None or ctx.faction is None:
        return
    match = HEADER_RE.match(header.text)
    datasheet = Datasheet(
        datasheet_id=ctx.datasheet_id,
        source_id=ctx.source_id,
        line=header.line,
        faction=ctx.faction,
        name=match["name"].strip() if match else header.text,
        damaged_w=info.damaged_w,
        damaged_description=info.damaged_description,
        leader_text=info.leader_text,
    )
    ctx.emit(datasheet, [header])
    keywords = sections.keyword_records(ctx, info)
    unit_size = min(info.points_models) if info.points_models else None
    if not info.models:
        ctx.notes.append("UNIT COMPOSITION names no model: no model profile")
    for model, frag in info.models:
        profile = ModelProfile(
            profile_id=sections.profile_id(ctx.datasheet_id, model),
            datasheet_id=ctx.datasheet_id,
            source_id=ctx.source_id,
            line=frag.line,
            name=model,
            keywords=keywords,
            unit_size=unit_size,
        )
        ctx.emit(profile, [])
