"""Page exports (`raw/pages/*.txt`): datasheet web pages saved as text -> records.

The format (the three seeds are its specification): a `Faction – Unit` header; the
datasheet sections (weapon tables, wargear, abilities, unit-specific sections,
composition and points, damaged, leader, keywords, faction keywords); the STRATAGEMS
list; the DETACHMENT ABILITY names; then a glossary of rule blocks that every page
repeats. The section parsers live in the sibling `page_*` modules; this one chains them
and does the accounting: every non-empty line ends in a record, in page furniture, as a
collapsed duplicate, or in quarantine, and `Source.rows_in == rows_curated +
rows_quarantined` (furniture and collapsed duplicates count as curated).

The export has no statline (M, T, Sv, W, Ld, OC): model profiles are yielded with those
stats NULL and the page report counts them (`profiles_without_statline`).

Page-independent ids (stratagems, detachment abilities) repeat across pages: run
`pipeline.dedupe.merge_shared_records` over all parsed records before storing them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.sources.page.context import PageContext
from pipeline.sources.page.glossary import Block, classify, find_blocks, rule_block, split_glossary
from pipeline.sources.page.lines import Ledger, decode_lines
from pipeline.sources.page.segments import Segments, segment
from pipeline.sources.page.sheet import (
    emit_datasheet,
    emit_detachment_abilities,
    faction_rule_names,
    parse_sections,
    read_header,
)
from pipeline.sources.page.stratagems import emit_stratagems, merge_page, read_block
from pipeline.sources.page.weapons import ability_vocabulary
from schemas.records import ModelProfile, QuarantineRow, Record, Source

FORMAT = "page_export"
#: Quarantine reason of text left over after a parser bug (the fuzz tests require none).
INTERNAL_ERROR = "internal parser error"
#: Quarantine reason of a line that is not valid UTF-8 (its raw text shows the bytes as `\xff`).
INVALID_UTF8 = "invalid UTF-8"


@dataclass(frozen=True)
class PageReport:
    """What one page gave: accounting per line, records per table, quarantine reasons."""

    source_id: str
    rows_in: int
    rows_curated: int
    rows_quarantined: int
    line_kinds: dict[str, int]
    records: dict[str, int]
    quarantine: dict[str, int]
    profiles_without_statline: int
    notes: tuple[str, ...]


@dataclass
class PageParse:
    source: Source
    records: list[Record]
    ledger: Ledger
    report: PageReport


def parse(path: Path) -> Iterator[Record]:
    """Records of one page export: Source, Datasheet, ..., QuarantineRows last."""
    yield from parse_page(path).records


def parse_page(path: Path) -> PageParse:
    """Parse one file; a line that is not UTF-8 is quarantined (never kept with U+FFFD)."""
    return parse_page_bytes(path.read_bytes(), source_id=f"{FORMAT}:{path.name}", path=str(path))


def parse_page_bytes(data: bytes, *, source_id: str, path: str = "") -> PageParse:
    """Parse the bytes of a page export: decoded strictly, line by line (`decode_lines`)."""
    text, undecodable = decode_lines(data)
    digest = hashlib.sha256(data).hexdigest()
    return parse_page_text(text, source_id=source_id, path=path, sha256=digest, undecodable=undecodable)


def parse_page_text(
    text: str,
    *,
    source_id: str,
    path: str = "",
    sha256: str | None = None,
    undecodable: Mapping[int, str] | None = None,
) -> PageParse:
    """Parse page-export text; `undecodable` (line number -> escaped line, blank in `text`)
    holds the lines that were not UTF-8: they are quarantined, never parsed."""
    ledger = Ledger.from_text(text)
    ctx = PageContext(source_id, ledger)
    try:
        _parse_into(ctx)
    except Exception as exc:  # the safety net: a parser bug must never lose a page's text
        ctx.notes.append(f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}")
    failed = any(n.startswith(INTERNAL_ERROR) for n in ctx.notes)
    for frag in ledger.unplaced():
        ctx.quarantine([frag], INTERNAL_ERROR if failed else "not placed by any section", "page")
    for number, escaped in (undecodable or {}).items():
        ctx.quarantine([ledger.add_undecodable(number, escaped)], INVALID_UTF8, "page")
    digest = sha256 or hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()
    return _finish(ctx, path, digest)


def _parse_into(ctx: PageContext) -> None:
    segments = segment(ctx.ledger.fragments())
    read_header(segments.header, ctx)
    blocks = _glossary_blocks(segments, ctx)
    titles = [b.title.text for b in blocks if b.kind == "weapon_ability"]
    sheet = parse_sections(segments.sections, ctx, ability_vocabulary(titles))
    block_drafts = [read_block(b, ctx) for b in blocks if b.kind == "stratagem"]
    emit_stratagems(merge_page(sheet.stratagems, block_drafts, ctx), ctx)
    emit_detachment_abilities(sheet.detachment_names, blocks, ctx)
    for block in blocks:
        ctx.emit(rule_block(block, ctx), [block.title, *block.lines])
    emit_datasheet(segments.header, sheet.info, ctx)


def _glossary_blocks(segments: Segments, ctx: PageContext) -> list[Block]:
    blocks = find_blocks(split_glossary(segments.glossary, ctx), ctx)
    faction_rules = faction_rule_names(segments.sections)
    for block in blocks:
        block.kind = classify(block, faction_rules)
    return blocks


_FIRST = {"sources": 0, "datasheets": 1}


def _finish(ctx: PageContext, path: str, sha256: str) -> PageParse:
    ledger = ctx.ledger
    quarantined = len(ledger.quarantined_lines())
    source = Source(
        source_id=ctx.source_id,
        format=FORMAT,
        path=path,
        sha256=sha256,
        rows_in=ledger.rows_in,
        rows_curated=ledger.rows_in - quarantined,
        rows_quarantined=quarantined,
    )
    quarantine = ctx.quarantine_rows()
    body = sorted(ctx.records, key=lambda r: _FIRST.get(r.TABLE, 2))
    records: list[Record] = [source, *body, *quarantine]
    return PageParse(source, records, ledger, _report(source, ctx, records, quarantine))


def _report(source: Source, ctx: PageContext, records: list[Record], rows: list[QuarantineRow]) -> PageReport:
    return PageReport(
        source_id=source.source_id,
        rows_in=source.rows_in,
        rows_curated=source.rows_curated,
        rows_quarantined=source.rows_quarantined,
        line_kinds=dict(ctx.ledger.line_kinds()),
        records=dict(Counter(r.TABLE for r in records)),
        quarantine=dict(Counter(r.reason for r in rows)),
        profiles_without_statline=sum(1 for r in records if isinstance(r, ModelProfile) and not r.has_statline),
        notes=tuple(ctx.notes),
    )
