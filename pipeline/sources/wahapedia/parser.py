"""Parser of the Wahapedia 10th-edition export: its tables in dependency order, every row accounted for
(docs/sources.md#wahapedia-export)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline import config, runtime
from pipeline.sources.report import FileReport, ParseReport
from pipeline.sources.wahapedia import details, rules, units
from pipeline.sources.wahapedia.tables import Table, missing_file_record, read_table, source_record
from schemas.records import Record

FILES: tuple[str, ...] = config.WAHAPEDIA_FILES


def read_tables(folder: Path) -> tuple[dict[str, Table], list[Record]]:
    """Every known table, plus quarantine records for malformed lines and missing files."""
    tables: dict[str, Table] = {}
    problems: list[Record] = []
    for name in FILES:
        table, rejected = read_table(folder, name)
        tables[name] = table
        problems.extend(rejected if table.present else [missing_file_record(table)])
    return tables, problems


def _export_wide(t: dict[str, Table], lookups: rules.Lookups) -> Iterator[Record]:
    yield from rules.read_factions(t["Factions.csv"], lookups)
    yield from rules.read_publications(t["Source.csv"], lookups)
    yield from rules.read_shared_abilities(t["Abilities.csv"], lookups)
    yield from rules.read_stratagems(t["Stratagems.csv"], lookups)
    yield from rules.read_enhancements(t["Enhancements.csv"], lookups)
    yield from rules.read_detachment_abilities(t["Detachment_abilities.csv"], lookups)


def _per_datasheet(t: dict[str, Table], lookups: rules.Lookups) -> Iterator[Record]:
    names: dict[str, str] = {}
    with_models = units.datasheets_with_models(t["Datasheets_models.csv"])
    yield from units.read_datasheets(t["Datasheets.csv"], lookups, with_models, names)
    known, facts = set(names), details.UnitFacts()
    yield from details.read_abilities(t["Datasheets_abilities.csv"], lookups, known, facts)
    yield from details.read_keywords(t["Datasheets_keywords.csv"], known, facts)
    yield from details.read_points(t["Datasheets_models_cost.csv"], known, facts)
    yield from units.read_models(t["Datasheets_models.csv"], names, facts)
    yield from units.read_weapons(t["Datasheets_wargear.csv"], names)
    yield from details.read_composition(t["Datasheets_unit_composition.csv"], known)
    yield from details.read_options(t["Datasheets_options.csv"], known)
    yield from details.read_leaders(t["Datasheets_leader.csv"], known)
    yield from rules.read_datasheet_stratagems(t["Datasheets_stratagems.csv"], lookups, known)
    yield from rules.read_datasheet_enhancements(t["Datasheets_enhancements.csv"], lookups, known)
    yield from rules.read_datasheet_detachment_abilities(t["Datasheets_detachment_abilities.csv"], lookups, known)


def parse(folder: Path, report: ParseReport | None = None) -> Iterator[Record]:
    """All records of one export folder, each file's `Source` last; never raises on bad rows.

    A `Source`'s `source_date` is the newest errata date in Source.csv (the export's freshness).
    `report`, if given, receives one `FileReport` per file of the export.
    """
    return iter(read_export(Path(folder), report))


def read_export(folder: Path, report: ParseReport | None = None) -> list[Record]:
    """Every record of the export, built with the cyclic garbage collector paused (~120k acyclic records)."""
    with runtime.cyclic_gc_paused():
        records, reports = _read(folder)  # the rows read are freed here, before collection resumes
    if report is not None:
        for file_report in reports:
            report.add(file_report)
    return records


def _read(folder: Path) -> tuple[list[Record], list[FileReport]]:
    tables, problems = read_tables(folder)
    records = [*problems, *_records(tables)]
    return records, [table.ledger.report() for table in tables.values()]


def _records(tables: dict[str, Table]) -> Iterator[Record]:
    lookups = rules.Lookups()
    yield from _export_wide(tables, lookups)
    yield from _per_datasheet(tables, lookups)
    newest = lookups.newest_date()
    for table in tables.values():
        if table.present:
            yield source_record(table, newest)
