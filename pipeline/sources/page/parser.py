"""Page exports -> records: chains the section parsers and accounts for every line.

Formats, accounting and judgement calls: docs/sources.md#page-exports."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.sources.accounting import RowLedger, clip, refused_file
from pipeline.sources.inputs import InputRefused, check_rows, field_too_long, read_input
from pipeline.sources.page.context import PageContext
from pipeline.sources.page.glossary import Block, classify, find_blocks, rule_block, split_glossary
from pipeline.sources.page.lines import FragmentLedger, decode_lines
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
from pipeline.sources.report import FileReport, ParseReport
from schemas.records import ModelProfile, Record, Source, SourceFormat

FORMAT: SourceFormat = "page_export"
#: Quarantine reason of text left over after a parser bug (the fuzz tests require none).
INTERNAL_ERROR = "internal parser error"
#: Quarantine reason of a line that is not valid UTF-8 (its raw text shows the bytes as `\xff`).
INVALID_UTF8 = "invalid UTF-8"


@dataclass
class PageParse:
    """One page: its `Source`, its records (Source first, quarantine last), every line's fragments,
    and its report (`counts`: lines per kind, model profiles without a statline; `notes`)."""

    source: Source
    records: list[Record]
    fragments: FragmentLedger
    report: FileReport


def parse(path: Path, report: ParseReport | None = None) -> Iterator[Record]:
    """Records of one page export: Source, Datasheet, ..., QuarantineRows last (its report to `report`).

    A file that may not be read (`inputs.read_input`) or has too many lines gives one quarantine row."""
    try:
        page = parse_page(path)
    except InputRefused as refused:
        row, file_report = refused_file(f"{FORMAT}:{path.name}", FORMAT, refused.reason)
        if report is not None:
            report.add(file_report)
        yield row
        return
    if report is not None:
        report.add(page.report)
    yield from page.records


def parse_page(path: Path) -> PageParse:
    """Parse one file; a line that is not UTF-8 is quarantined (never kept with U+FFFD)."""
    read = read_input(path)
    check_rows(read.data.count(b"\n") + 1, path)
    return parse_page_bytes(read.data, source_id=f"{FORMAT}:{path.name}", path=str(path), sha256=read.sha256)


def parse_page_bytes(data: bytes, *, source_id: str, path: str = "", sha256: str | None = None) -> PageParse:
    """Parse the bytes of a page export: decoded strictly, line by line (`decode_lines`)."""
    text, undecodable = decode_lines(data)
    digest = sha256 or hashlib.sha256(data).hexdigest()
    return parse_page_text(text, source_id=source_id, path=path, sha256=digest, undecodable=undecodable)


def _long_lines(text: str) -> tuple[str, dict[int, tuple[str, str]]]:
    """`text` with every line above MAX_INPUT_FIELD_CHARS blanked, and those lines: number -> (its first
    MAX_RAW characters, the quarantine reason). A line is a page's field: it is never parsed."""
    lines = text.split("\n")
    long: dict[int, tuple[str, str]] = {}
    for number, line in enumerate(lines, start=1):
        reason = field_too_long("line", len(line))
        if reason is not None:
            long[number] = (clip(line.strip()), reason)
            lines[number - 1] = ""
    return ("\n".join(lines), long) if long else (text, long)


def parse_page_text(
    text: str,
    *,
    source_id: str,
    path: str = "",
    sha256: str | None = None,
    undecodable: Mapping[int, str] | None = None,
) -> PageParse:
    """Parse page-export text; `undecodable` (line number -> escaped line, blank in `text`)
    holds the lines that were not UTF-8: they are quarantined, never parsed, as are lines too long."""
    text, long_lines = _long_lines(text)
    fragments = FragmentLedger.from_text(text)
    ctx = PageContext(source_id, fragments)
    try:
        _parse_into(ctx)
    except Exception as exc:  # the safety net: a parser bug must never lose a page's text
        ctx.notes.append(f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}")
    failed = any(n.startswith(INTERNAL_ERROR) for n in ctx.notes)
    for frag in fragments.unplaced():
        ctx.quarantine([frag], INTERNAL_ERROR if failed else "not placed by any section", "page")
    for number, escaped in (undecodable or {}).items():
        ctx.quarantine([fragments.add_undecodable(number, escaped)], INVALID_UTF8, "page")
    for number, (excerpt, reason) in long_lines.items():
        ctx.quarantine([fragments.add_undecodable(number, excerpt)], reason, "page")
    digest = sha256 or hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()
    return _finish(ctx, path, digest)


def _parse_into(ctx: PageContext) -> None:
    segments = segment(ctx.fragments.fragments())
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
    """Accounting by line: a line is quarantined when any of its fragments is, else curated."""
    fragments = ctx.fragments
    quarantined = len(fragments.quarantined_lines())
    ledger = RowLedger(ctx.source_id, FORMAT, fragments.rows_in, fragments.rows_in - quarantined, quarantined)
    source = ledger.source(path, sha256)
    quarantine = ctx.quarantine_rows()
    body = sorted(ctx.records, key=lambda r: _FIRST.get(r.TABLE, 2))
    ledger.tally([*body, *quarantine])
    records: list[Record] = [source, *body, *quarantine]
    return PageParse(source, records, fragments, ledger.report(_counts(ctx, body), ctx.notes))


def _counts(ctx: PageContext, records: list[Record]) -> dict[str, int]:
    counts = {f"{kind} lines": n for kind, n in ctx.fragments.line_kinds().items()}
    counts["profiles_without_statline"] = sum(1 for r in records if isinstance(r, ModelProfile) and not r.has_statline)
    return counts
