"""Default loadouts read from text (Wahapedia, page exports): the loadout statements applied to the models
each points option holds (docs/sources.md#default-loadouts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pipeline.loadouts import issues as why
from pipeline.loadouts.composition import option_parts
from pipeline.loadouts.issues import Issues
from pipeline.loadouts.items import ProfileRef, Resolved, WeaponIndex
from pipeline.loadouts.names import best_match, key, words
from pipeline.loadouts.rows import CHARACTER, CarriedWeapon, GroupLoadout, loadout_rows
from pipeline.loadouts.statements import Statement, statements
from schemas.records import Datasheet, DatasheetLoadout, LoadoutIssue, LoadoutMethod, ModelProfile, Points, Weapon


@dataclass(frozen=True)
class SheetFacts:
    """What a text source says about one datasheet; `home_weapons` are those of the datasheet it copies."""

    datasheet: Datasheet
    composition: tuple[str, ...]
    options: tuple[Points, ...]
    profiles: tuple[ModelProfile, ...]
    weapons: tuple[Weapon, ...]
    home_weapons: tuple[Weapon, ...] = ()
    wargear: tuple[str, ...] = ()
    has_options: bool = False


@dataclass
class Outcome:
    rows: list[DatasheetLoadout] = field(default_factory=list)
    issues: list[LoadoutIssue] = field(default_factory=list)


#: Words of a profile that holds every model no other profile names (`Other models`).
_CATCH_ALL = frozenset({"other"})


@dataclass
class _Group:
    """Models of one composition part (or carved from one by a counted statement) and the items they carry."""

    name: str
    profile: str | None
    count: int
    items: list[str] | None = None
    carved: bool = False


def resolve(facts: SheetFacts) -> Outcome:
    """Rows for every points option, or none and the reasons (any unresolved issue drops them all)."""
    sheet = facts.datasheet
    found = Issues(sheet.datasheet_id, sheet.loadout, source_id=sheet.source_id, line=sheet.line)
    said = statements(sheet.loadout)
    index = WeaponIndex(_refs(facts.weapons), facts.wargear, _refs(facts.home_weapons))
    resolved = {item: index.resolve(item) for s in said for item in s.items}
    for item, result in resolved.items():
        if result.unknown:
            found.add(why.UNKNOWN_ITEM, item)
    method: LoadoutMethod = "text" if said else "every weapon"
    if not said and (facts.has_options or (sheet.loadout or "").strip()):
        found.add(why.NO_STATEMENT, (sheet.loadout or "").strip()[:200])
    elif not said:
        found.add(why.ASSUMED_ONE_EACH, sheet.name, "note")
    if not facts.options:
        found.add(why.NO_OPTION, sheet.name)
    characters = {p.name for p in facts.profiles if CHARACTER in p.keywords}
    rows: list[DatasheetLoadout] = []
    for option in facts.options:
        groups = _option_groups(facts, option, found)
        if groups is None:
            continue
        if said:
            _apply_all(groups, said, found)
        elif len(groups) > 1:
            found.add(why.NO_STATEMENT, f"{len(groups)} kinds of models and no loadout text")
        loadouts = _loadouts(groups, said, resolved, index)
        rows.extend(loadout_rows(option, loadouts, method, characters))
    if not found.unresolved and not rows:
        found.add(why.NOTHING_CARRIED, sheet.name, "note")
    return Outcome([] if found.unresolved else rows, found.records())


def _refs(weapons: Sequence[Weapon]) -> list[ProfileRef]:
    return [ProfileRef(w.weapon_id, w.name, w.datasheet_id) for w in weapons]


def _option_groups(facts: SheetFacts, option: Points, found: Issues) -> list[_Group] | None:
    """The option's models as groups, each with its profile; None (and why) if they cannot be told."""
    if facts.composition:
        parts = option_parts(facts.composition, option.description, option.models)
    else:
        parts = [(facts.datasheet.name, option.models)]
    if parts is None:
        found.add(why.OPTION_MISFIT, f"{option.description} ({option.models} models)")
        return None
    profiles = profiles_of(parts, list(dict.fromkeys(p.name for p in facts.profiles)))
    missing = [name for name, _ in parts if name not in profiles]
    for name in missing:
        found.add(why.NO_PROFILE, name)
    if missing:
        return None
    return [_Group(name, profiles[name], count) for name, count in parts]


def profiles_of(parts: Sequence[tuple[str, int]], names: Sequence[str]) -> dict[str, str]:
    """Part name -> profile name: the only profile; else an equal name; else the best match among the
    profiles no part has by an equal name, then among all; else a catch-all profile (`Other models`); else the
    profile of the most numerous part (a sergeant shares the squad's statline)."""
    if len(names) == 1:
        return {name: names[0] for name, _ in parts}
    found = {name: names[i] for name, _ in parts if (i := _equal(name, names)) is not None}
    free = [n for n in names if n not in found.values()]
    for name, _ in parts:
        if name in found:
            continue
        index = best_match(name, free) if free else None
        if index is not None:
            found[name] = free[index]
        elif (index := best_match(name, names)) is not None:
            found[name] = names[index]
    catch_all = [n for n in names if words(n) <= _CATCH_ALL]
    matched = sorted((count, name) for name, count in parts if name in found)
    for name, _ in parts:
        if name not in found and len(catch_all) == 1:
            found[name] = catch_all[0]
        elif name not in found and matched:
            found[name] = found[matched[-1][1]]
    return found


def _equal(name: str, names: Sequence[str]) -> int | None:
    hits = [i for i, n in enumerate(names) if key(n) == key(name)]
    return hits[0] if len(hits) == 1 else None


def _apply_all(groups: list[_Group], said: Sequence[Statement], found: Issues) -> None:
    for statement in said:
        for name in _apply(groups, statement):
            found.add(why.UNMATCHED_SUBJECT, f"{statement.subject_text}: {name}", "note")
    for group in groups:
        if group.count > 0 and group.items is None:
            found.add(why.UNCOVERED, group.name)


def _apply(groups: list[_Group], statement: Statement) -> list[str]:
    """Give the statement's items to the models it names; returns the names that match no models."""
    subject = statement.subject
    if subject.whole_unit:
        for group in [g for g in groups if not (subject.other and g.items is not None)]:
            _give(group, statement)
        return []
    missing: list[str] = []
    for name in subject.names:
        named = _find(groups, name)
        if named is None:
            missing.append(name)
        elif subject.count is not None and subject.count < named.count:
            _give(_carve(groups, named, subject.count), statement)
        else:
            for group in [named, *_kinds_of(groups, named, name)]:
                _give(group, statement)
    return missing


def _carve(groups: list[_Group], base: _Group, count: int) -> _Group:
    """`count` models of a part taken into a group of their own (`One Nightmare Hulk is equipped with`)."""
    carved = _Group(f"{base.name} ({_carved_count(groups, base) + 1})", base.profile, count, list(base.items or []))
    carved.carved = True
    base.count -= count
    groups.insert(groups.index(base), carved)
    return carved


def _kinds_of(groups: list[_Group], named: _Group, name: str) -> list[_Group]:
    """Parts no statement covers yet whose name holds the subject's (`Every Aberrant`: the Aberrant
    Hypermorph too); a later statement about them replaces these items."""
    target = words(name)
    return [g for g in groups if g is not named and not g.carved and g.items is None and target <= words(g.name)]


def _carved_count(groups: list[_Group], base: _Group) -> int:
    return sum(1 for g in groups if g.carved and g.name.startswith(f"{base.name} ("))


def _give(group: _Group, statement: Statement) -> None:
    base = group.items if statement.additional and group.items is not None else []
    group.items = [*base, *statement.items]


def _find(groups: list[_Group], name: str) -> _Group | None:
    """The composition part a subject names: by part name, else by profile name (if one part has it)."""
    bases = [g for g in groups if not g.carved]
    index = best_match(name, [g.name for g in bases], overlap=False)
    if index is not None:
        return bases[index]
    profiles = list(dict.fromkeys(g.profile or "" for g in bases))
    index = best_match(name, profiles, overlap=False)
    if index is None:
        return None
    holders = [g for g in bases if g.profile == profiles[index]]
    return holders[0] if len(holders) == 1 else None


def _loadouts(
    groups: list[_Group], said: Sequence[Statement], resolved: dict[str, Resolved], index: WeaponIndex
) -> list[GroupLoadout]:
    """The weapons each group carries: its items' (or, with no text, one of each weapon)."""
    loadouts = []
    for group in groups:
        if group.count <= 0 or group.profile is None:
            continue
        weapons = _carried(group.items or [], resolved) if said else index.every_weapon()
        loadouts.append(GroupLoadout(group.name, group.profile, group.count, weapons))
    return loadouts


def _carried(items: Sequence[str], resolved: dict[str, Resolved]) -> tuple[CarriedWeapon, ...]:
    """Weapons of a list of items; a weapon named twice is carried twice."""
    counts: dict[CarriedWeapon, int] = {}
    for item in items:
        for weapon in resolved[item].weapons:
            one = replace(weapon, per_model=1)
            counts[one] = counts.get(one, 0) + weapon.per_model
    return tuple(replace(w, per_model=n) for w, n in counts.items())
