"""RANGED / MELEE WEAPONS tables of a page export -> one `Weapon` per profile, abilities peeled off glued
names (docs/sources.md#page-judgement-calls)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.ids import content_hash, slug
from pipeline.normalise.text import collapse_ws, fold_quotes, parse_inches, parse_plus
from pipeline.normalise.weapon_abilities import (
    CORE_ABILITY_PATTERN,
    parse_ability_list,
    parse_weapon_ability,
)
from pipeline.sources.page.context import PageContext
from pipeline.sources.page.lines import Fragment
from schemas.records import Weapon, WeaponAbilityRow
from schemas.weapon_abilities import WeaponAbility

_HEADER_COLUMNS = (["RANGE", "A", "BS", "S", "AP", "D"], ["RANGE", "A", "WS", "S", "AP", "D"])
_PROFILE_MARK = re.compile(r"^[➤>»]\s*")


def ability_vocabulary(glossary_titles: Iterable[str]) -> re.Pattern[str]:
    """Regex matching one weapon ability at the end of a name: core list + glossary titles.

    Titles of parameterised abilities (`Sustained Hits`, `Anti`) are left to the core
    pattern, which knows their parameters.
    """
    extra = []
    for title in glossary_titles:
        text = collapse_ws(fold_quotes(title)).lower()
        parameterised = re.fullmatch(CORE_ABILITY_PATTERN, f"{text} 1") or re.fullmatch(
            CORE_ABILITY_PATTERN, f"{text}-infantry 4+"
        )
        if text and not parameterised and not re.fullmatch(CORE_ABILITY_PATTERN, text):
            extra.append(re.escape(text))
    alternatives = "|".join([CORE_ABILITY_PATTERN, *sorted(extra, key=len, reverse=True)])
    return re.compile(rf"\s+(?:{alternatives})$", re.IGNORECASE)


def split_weapon_name(cell: str, vocabulary: re.Pattern[str]) -> tuple[str, list[WeaponAbility]]:
    """`Bolt pistol [pistol]` / `Grabba dragga assault precision` -> name, typed abilities."""
    text = collapse_ws(_PROFILE_MARK.sub("", cell))
    bracket = re.fullmatch(r"(?P<name>.*?)\s*\[(?P<abilities>.*)\]", text)
    if bracket:
        return bracket["name"], parse_ability_list(bracket["abilities"])
    name, peeled = text, list[WeaponAbility]()
    while True:
        match = vocabulary.search(name)
        if match is None or not name[: match.start()].strip():
            break
        ability = parse_weapon_ability(match.group().strip())
        if any(a.normalised == ability.normalised for a in peeled):
            break
        peeled.insert(0, ability)
        name = name[: match.start()].rstrip()
    return name, peeled


@dataclass
class _Row:
    frag: Fragment
    name: str
    values: list[str]


def _row(frag: Fragment) -> _Row | None:
    if not frag.text.startswith("|"):
        return None
    cells = [c.strip() for c in frag.text.strip().strip("|").split("|")]
    while len(cells) > 1 and not cells[-1]:
        cells.pop()
    return _Row(frag, cells[0], cells[1:])


def _header_ok(header: Fragment) -> bool:
    cells = [c.strip() for c in header.text.split("|")][1:]
    cells = [c for c in cells if c]
    return cells in _HEADER_COLUMNS


def parse_weapon_table(frags: list[Fragment], kind: str, ctx: PageContext, vocabulary: re.Pattern[str]) -> None:
    """A table section: header fragment first, then rows (empty name row + full row)."""
    header, rows = frags[0], frags[1:]
    section = f"{kind}_weapons"
    if not _header_ok(header):
        ctx.quarantine([header, *rows], "weapon table header has unexpected columns", section)
        return
    ctx.furniture(header, "weapon table header")
    pending: _Row | None = None
    for frag in rows:
        row = _row(frag)
        if row is None or not row.name:
            ctx.quarantine([frag], "not a weapon table row", section)
        elif not any(row.values):
            _drop_pending(pending, ctx, section)
            pending = row
        else:
            _settle_pending(pending, row, ctx, section)
            pending = None
            _weapon_from_row(row, kind, ctx, vocabulary)
    _drop_pending(pending, ctx, section)


def _drop_pending(pending: _Row | None, ctx: PageContext, section: str) -> None:
    if pending is not None:
        ctx.quarantine([pending.frag], "weapon name row without a profile row", section)


def _settle_pending(pending: _Row | None, row: _Row, ctx: PageContext, section: str) -> None:
    """The empty row before a full row: its duplicate, or the heading of a multi-profile weapon."""
    if pending is None:
        return
    name = _PROFILE_MARK.sub("", row.name).casefold()
    if pending.name.casefold() == row.name.casefold():
        ctx.duplicate(pending.frag, f"empty row of weapon {row.name!r}")
    elif name.startswith(pending.name.casefold()):
        ctx.fragments.mark(pending.frag, "record", target=f"weapon group {pending.name!r}")
    else:
        _drop_pending(pending, ctx, section)


def _weapon_from_row(row: _Row, kind: str, ctx: PageContext, vocabulary: re.Pattern[str]) -> None:
    section = f"{kind}_weapons"
    if len(row.values) != 6:
        reason = f"expected 6 values (range, A, skill, S, AP, D), found {len(row.values)}"
        ctx.quarantine([row.frag], reason, section)
        return
    if ctx.datasheet_id is None:
        ctx.quarantine([row.frag], "no datasheet header: weapon has no datasheet", section)
        return
    name, typed = split_weapon_name(row.name, vocabulary)
    weapon = ctx.build(Weapon, lambda: _weapon(row, name, typed, kind, ctx), [row.frag], section)
    if weapon is None:
        return
    weapon = _distinct_profile(weapon, row, ctx)
    if not ctx.emit(weapon, [row.frag]):
        return
    for ability in typed:
        ability_row = WeaponAbilityRow(
            weapon_id=weapon.weapon_id, source_id=ctx.source_id, line=row.frag.line, **ability.row()
        )
        ctx.emit(ability_row, [])


def _distinct_profile(weapon: Weapon, row: _Row, ctx: PageContext) -> Weapon:
    """A second, different profile under the same name and kind gets a content-derived id
    suffix; an identical repeat keeps the id (and is then collapsed as a duplicate)."""
    existing = ctx.existing(weapon)
    if existing is None or ctx.same_content(existing, weapon):
        return weapon
    suffix = content_hash(*row.values, length=6)
    return weapon.model_copy(update={"weapon_id": f"{weapon.weapon_id}-{suffix}"})


def _weapon(row: _Row, name: str, typed: list[WeaponAbility], kind: str, ctx: PageContext) -> Weapon:
    rng, attacks, skill, strength, ap, damage = row.values
    skill_value = None if skill.strip().upper() in {"N/A", "-", ""} else parse_plus(skill)
    return Weapon(
        weapon_id=f"{ctx.datasheet_id}:{kind}:{slug(name)}",
        datasheet_id=str(ctx.datasheet_id),
        source_id=ctx.source_id,
        line=row.frag.line,
        name=name,
        kind=kind,
        range_inches=parse_inches(rng),
        attacks=attacks,
        skill=skill_value,
        strength=int(strength),
        ap=ap,
        damage=damage,
        abilities=[a.normalised for a in typed],
        typed_abilities=typed,
    )
