"""The loadouts stage as `pipeline/run.py` calls it: default loadouts of every text-source datasheet
(BSData's come from its parser), and the resolution report for all of them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol, TypeVar

from pipeline.dataset import Dataset, Staged
from pipeline.loadouts.copies import find_homes
from pipeline.loadouts.items import weapon_key
from pipeline.loadouts.report import LoadoutReport, loadout_report
from pipeline.loadouts.text import SheetFacts, resolve
from schemas.records import (
    Ability,
    CompositionLine,
    Datasheet,
    DatasheetLoadout,
    LoadoutIssue,
    ModelProfile,
    Points,
    Record,
    Source,
    WargearOption,
    Weapon,
)


class _OfSheet(Protocol):
    @property
    def datasheet_id(self) -> str: ...


R = TypeVar("R", bound=_OfSheet)
#: Formats whose loadouts their parser reads (from structure, not text).
PARSED_FORMATS = frozenset({"bsdata"})


def _by_sheet(records: Iterable[R]) -> dict[str, list[R]]:
    grouped: dict[str, list[R]] = defaultdict(list)
    for record in records:
        grouped[record.datasheet_id].append(record)
    return grouped


def loadouts_stage(dataset: Dataset) -> Staged[LoadoutReport]:
    """`datasheet_loadouts` and `loadout_issues` for every datasheet of a text source that has weapons."""
    formats = {s.source_id: s.format for s in dataset.records(Source)}
    sheets = dataset.records(Datasheet)
    weapons = _by_sheet(dataset.records(Weapon))
    text_sheets = [s for s in sheets if formats.get(s.source_id) not in PARSED_FORMATS]
    names = {i: {weapon_key(w.name) for w in rows} for i, rows in weapons.items()}
    homes = find_homes(text_sheets, names)
    composition = _by_sheet(sorted(dataset.records(CompositionLine), key=lambda c: c.position))
    points = _by_sheet(dataset.records(Points))
    profiles = _by_sheet(dataset.records(ModelProfile))
    abilities = _by_sheet(dataset.records(Ability))
    options = _by_sheet(dataset.records(WargearOption))
    added: list[Record] = []
    for sheet in text_sheets:
        own = sheet.datasheet_id
        home = homes.get(own, "")
        if own not in weapons and home not in weapons:
            continue
        facts = SheetFacts(
            datasheet=sheet,
            composition=tuple(c.text for c in composition.get(own, [])),
            options=tuple(points.get(own, [])),
            profiles=tuple(profiles.get(own, [])),
            weapons=tuple(weapons.get(own, [])),
            home_weapons=tuple(weapons.get(home, [])),
            wargear=tuple(dict.fromkeys(a.name for a in [*abilities.get(own, []), *abilities.get(home, [])])),
            has_options=bool(options.get(own) or options.get(home)),
        )
        outcome = resolve(facts)
        added.extend([*outcome.rows, *outcome.issues])
    result = dataset.adding(added)
    armed = [(s, formats.get(s.source_id, "?")) for s in sheets if s.datasheet_id in weapons or s.datasheet_id in homes]
    report = loadout_report(armed, result.records(DatasheetLoadout), result.records(LoadoutIssue), len(homes))
    return Staged(result, report)
