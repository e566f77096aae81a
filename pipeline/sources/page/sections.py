"""Datasheet sections of a page export other than the weapon tables and the stratagem list
(judgement calls: docs/sources.md#page-judgement-calls)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

from pipeline.ids import slug
from pipeline.normalise.text import collapse_ws, fold_quotes
from pipeline.sources.page.context import PageContext
from pipeline.sources.page.lines import Fragment
from pipeline.sources.page.patterns import BULLET_RE, POINTS_RE, named_ability_cuts
from schemas.records import Ability, CompositionLine, Keyword, Points, WargearOption

_CORE_PARAM = re.compile(r"^(?P<name>.+?)\s+(?P<param>\d*D\d+(?:\+\d+)?|\d+\+|\d+\"|\d+)$")
_NAMED = re.compile(r"^(?P<name>[^:.]{1,60}?):\s+(?P<text>.+)$")
_COMPOSITION = re.compile(r"^(?P<count>\d+)(?:\s*-\s*(?P<max>\d+))?\s+(?P<name>.+?)(?:\s+[–—-]\s+(?P<note>.+))?$")
#: Quarantine reason of a points table row that is not `| N model(s) | cost |` (`| 1 model | 9x0 |`).
MALFORMED_POINTS = "malformed points row (expected | N models | cost |)"
_DAMAGED = re.compile(r"^DAMAGED:\s*(?P<range>\d+\s*-\s*\d+)?", re.IGNORECASE)


@dataclass
class SheetInfo:
    """What the datasheet record and the model profiles need from several sections."""

    damaged_w: str | None = None
    damaged_description: str | None = None
    leader_text: str | None = None
    models: list[tuple[str, Fragment]] = field(default_factory=list)
    points_models: list[int] = field(default_factory=list)
    keywords: dict[str, tuple[bool, Fragment]] = field(default_factory=dict)


def _ability(ctx: PageContext, frag: Fragment, name: str, kind: str, **fields: str | None) -> Ability:
    return Ability(
        datasheet_id=str(ctx.datasheet_id),
        source_id=ctx.source_id,
        line=frag.line,
        name=name,
        kind=kind,
        **fields,
    )


def _emit_ability(ctx: PageContext, frags: list[Fragment], name: str, kind: str, **fields: str | None) -> None:
    record = ctx.build(Ability, partial(_ability, ctx, frags[0], name, kind, **fields), frags, "abilities")
    if record is not None:
        ctx.emit(record, frags)


def parse_wargear(frags: list[Fragment], ctx: PageContext) -> None:
    ctx.furniture(frags[0], "section heading")
    options: list[tuple[str, list[Fragment]]] = []
    for frag in frags[1:]:
        bullet = BULLET_RE.match(frag.text)
        text = bullet["value"] if bullet else frag.text
        if text.casefold() == "none" and not options:
            ctx.record_text(frag, "wargear_options: none")
            ctx.notes.append("WARGEAR OPTIONS: None (no option rows)")
        elif bullet or not options:
            options.append((text, [frag]))
        else:
            options[-1] = (f"{options[-1][0]}\n{text}", [*options[-1][1], frag])
    for position, (text, parts) in enumerate(options, start=1):
        option = ctx.build(WargearOption, partial(_option, ctx, position, text, parts[0]), parts, "wargear")
        if option is not None:
            ctx.emit(option, parts)


def _option(ctx: PageContext, position: int, text: str, frag: Fragment) -> WargearOption:
    return WargearOption(
        datasheet_id=str(ctx.datasheet_id),
        source_id=ctx.source_id,
        line=frag.line,
        position=position,
        text=text,
    )


def parse_abilities(frags: list[Fragment], ctx: PageContext) -> None:
    ctx.furniture(frags[0], "section heading")
    named: list[tuple[str, list[str], list[Fragment]]] = []
    for frag in frags[1:]:
        if frag.text.startswith(("CORE:", "FACTION:")):
            _core_or_faction(frag, ctx)
            continue
        for piece in ctx.fragments.split(frag, named_ability_cuts(frag.raw)):
            match = _NAMED.match(piece.text)
            if match:
                named.append((match["name"].strip(), [match["text"].strip()], [piece]))
            elif named:
                named[-1][1].append(piece.text)
                named[-1][2].append(piece)
            else:
                ctx.quarantine([piece], "ability text without an ability name", "abilities")
    for name, texts, parts in named:
        _emit_ability(ctx, parts, name, "datasheet", text="\n".join(texts))


def _core_or_faction(frag: Fragment, ctx: PageContext) -> None:
    label, _, rest = frag.text.partition(":")
    kind = "core" if label == "CORE" else "faction"
    items = [collapse_ws(i) for i in rest.split(",") if i.strip()]
    if not items:
        ctx.quarantine([frag], f"{label}: line without abilities", "abilities")
    for item in items:
        param = _CORE_PARAM.match(fold_quotes(item)) if kind == "core" else None
        name, parameter = (param["name"], param["param"]) if param else (item, None)
        _emit_ability(ctx, [frag], name, kind, parameter=parameter)


def parse_special(frags: list[Fragment], ctx: PageContext) -> None:
    """A unit-specific section: one `special` ability named by its heading."""
    heading, lines = frags[0], []
    parts = [heading]
    for frag in frags[1:]:
        pieces = ctx.fragments.split(frag, named_ability_cuts(frag.raw))
        lines += [p.text for p in pieces]
        parts += pieces
    if not lines:
        ctx.notes.append(f"section {heading.text!r} has no text")
    _emit_ability(ctx, parts, heading.text, "special", text="\n".join(lines) or None)


def parse_composition(frags: list[Fragment], ctx: PageContext, info: SheetInfo) -> None:
    ctx.furniture(frags[0], "section heading")
    position = 0
    for frag in frags[1:]:
        points = POINTS_RE.match(frag.text)
        if points:
            _points(frag, points, ctx, info)
            continue
        if "|" in frag.text:  # a table row is a points row: never read it as a model line
            ctx.quarantine([frag], MALFORMED_POINTS, "composition")
            continue
        position += 1
        bullet = BULLET_RE.match(frag.text)
        text = bullet["value"] if bullet else frag.text
        line = CompositionLine(
            datasheet_id=str(ctx.datasheet_id),
            source_id=ctx.source_id,
            line=frag.line,
            position=position,
            text=text,
        )
        if ctx.emit(line, [frag]):
            model = _COMPOSITION.match(text)
            if model:
                info.models.append((model["name"], frag))
            else:
                ctx.notes.append(f"composition line {frag.line} names no model count")


def _points(frag: Fragment, match: re.Match[str], ctx: PageContext, info: SheetInfo) -> None:
    description = frag.text.strip("| ").split("|")[0].strip()
    record = ctx.build(
        Points,
        lambda: Points(
            datasheet_id=str(ctx.datasheet_id),
            source_id=ctx.source_id,
            line=frag.line,
            models=int(match["models"]),
            cost=int(match["cost"]),
            description=description,
        ),
        [frag],
        "composition",
    )
    if record is not None and ctx.emit(record, [frag]):
        info.points_models.append(record.models)


def parse_damaged(frags: list[Fragment], ctx: PageContext, info: SheetInfo) -> None:
    head = _DAMAGED.match(frags[0].text)
    info.damaged_w = collapse_ws(head["range"]).replace(" ", "") if head and head["range"] else None
    info.damaged_description = "\n".join(f.text for f in frags[1:]) or None
    _emit_ability(ctx, frags, "Damaged", "damaged", parameter=info.damaged_w, text=info.damaged_description)


def parse_leader(frags: list[Fragment], ctx: PageContext, info: SheetInfo) -> None:
    info.leader_text = "\n".join(f.text for f in frags[1:]) or None
    if len(frags) <= 2:
        ctx.notes.append("LEADER: the page lists no units this model can be attached to")
    _emit_ability(ctx, frags, "Leader", "leader", text=info.leader_text)


def parse_keywords(frags: list[Fragment], ctx: PageContext, info: SheetInfo, *, faction: bool) -> None:
    """`KEYWORDS: A, B` (one line) or `FACTION KEYWORDS:` then one keyword a line; repeats
    collapse, and a keyword listed in both is a faction keyword."""
    first = frags[0]
    _, _, inline = first.text.partition(":")
    if not inline.strip():
        ctx.furniture(first, "section heading")
    entries = [(k, first) for k in inline.split(",")] + [(k, f) for f in frags[1:] for k in f.text.split(",")]
    for raw, frag in entries:
        keyword = collapse_ws(raw).upper()
        if not keyword:
            continue
        seen = info.keywords.get(keyword)
        if seen is None or (faction and not seen[0]):
            info.keywords[keyword] = (faction, frag)
            if frag.disposition is None:
                ctx.record_text(frag, "keywords")
        elif frag.disposition is None:
            ctx.duplicate(frag, f"keyword {keyword} again")


def keyword_records(ctx: PageContext, info: SheetInfo) -> list[str]:
    """Emit the collected keywords; return them (non-faction first) for the model profiles."""
    for keyword, (is_faction, frag) in info.keywords.items():
        ctx.emit(
            Keyword(
                datasheet_id=str(ctx.datasheet_id),
                source_id=ctx.source_id,
                line=frag.line,
                keyword=keyword,
                is_faction=is_faction,
            ),
            [],
        )
    regular = [k for k, (f, _) in info.keywords.items() if not f]
    return regular + [k for k, (f, _) in info.keywords.items() if f]


def profile_id(datasheet_id: str, model: str) -> str:
    return f"{datasheet_id}:{slug(model)}"
