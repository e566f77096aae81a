"""A small, consistent slice of the real Wahapedia export, written to a temporary folder.

A full-export run costs minutes (the damage matrix alone is ~11.6 M cells per
scenario), so the release tests copy the rows of a few datasheets from each of the
18 tables, byte for byte (BOM, trailing `|`, HTML and all), plus the export-wide
rows those datasheets point at. Nothing is copied into the repository: the slice
is built in `tmp_path` at test time from the shared corpus.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipeline import config

#: Warboss leads Nobz, Lord Invocatus leads Khorne Berzerkers, plus the Avenger Strike Fighter:
#: three factions, leader links, multi-option points, ranged and melee weapons.
WARBOSS, NOBZ, INVOCATUS, BERZERKERS, AVENGER = (
    "000000001",
    "000000021",
    "000002623",
    "000002627",
    "000000780",
)
DATASHEETS = frozenset({WARBOSS, NOBZ, INVOCATUS, BERZERKERS, AVENGER})

#: Export-wide table -> (its id column, the link table and column that reference it).
REFERENCED: dict[str, tuple[str, str, str]] = {
    "Abilities.csv": ("id", "Datasheets_abilities.csv", "ability_id"),
    "Stratagems.csv": ("id", "Datasheets_stratagems.csv", "stratagem_id"),
    "Enhancements.csv": ("id", "Datasheets_enhancements.csv", "enhancement_id"),
    "Detachment_abilities.csv": ("id", "Datasheets_detachment_abilities.csv", "detachment_ability_id"),
}
#: Small lookup tables copied whole.
WHOLE = ("Factions.csv", "Source.csv")


def _split(line: bytes) -> list[str]:
    return line.decode("utf-8-sig").split("|")


def _lines(path: Path) -> tuple[bytes, list[bytes]]:
    """Header line and data lines (bytes, `\\n` kept off, empty lines dropped)."""
    header, *rows = path.read_bytes().split(b"\n")
    return header, [row for row in rows if row.strip()]


def _keep(path: Path, wanted: Callable[[dict[str, str]], bool]) -> list[bytes]:
    header, rows = _lines(path)
    names = [n.strip() for n in _split(header)]
    kept = [header]
    for row in rows:
        if wanted(dict(zip(names, _split(row), strict=False))):
            kept.append(row)
    return kept


def _column(lines: list[bytes], column: str) -> set[str]:
    names = [n.strip() for n in _split(lines[0])]
    return {dict(zip(names, _split(row), strict=False))[column].strip() for row in lines[1:]}


def _write(folder: Path, name: str, lines: list[bytes]) -> None:
    (folder / name).write_bytes(b"\n".join(lines) + b"\n")


def write_subset(source: Path, target: Path, datasheets: frozenset[str] = DATASHEETS) -> Path:
    """Copy the rows of `datasheets` (and what they reference) of all 18 tables into `target`."""
    target.mkdir(parents=True, exist_ok=True)
    tables: dict[str, list[bytes]] = {}
    for name in config.WAHAPEDIA_FILES:
        if name == "Datasheets.csv":
            tables[name] = _keep(source / name, lambda r: r["id"].strip() in datasheets)
        elif name == "Datasheets_leader.csv":
            tables[name] = _keep(
                source / name,
                lambda r: r["leader_id"].strip() in datasheets and r["attached_id"].strip() in datasheets,
            )
        elif name.startswith("Datasheets_"):
            tables[name] = _keep(source / name, lambda r: r["datasheet_id"].strip() in datasheets)
    for name, (id_column, link_table, link_column) in REFERENCED.items():
        ids = _column(tables[link_table], link_column)
        tables[name] = _keep(source / name, lambda r, c=id_column, i=ids: r[c].strip() in i)  # type: ignore[misc]
    for name in WHOLE:
        header, rows = _lines(source / name)
        tables[name] = [header, *rows]
    for name, lines in tables.items():
        _write(target, name, lines)
    return target


# --- hand-breaking a copy of the slice --------------------------------------------------------------


def _file_lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def _header_names(lines: list[bytes]) -> list[str]:
    return [n.strip() for n in _split(lines[0])]


def set_cell(path: Path, row_id: dict[str, str], column: str, value: bytes) -> int:
    """Overwrite one cell of the first row matching `row_id`; returns its 1-based line."""
    lines = _file_lines(path)
    names = _header_names(lines)
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split(b"|")
        cells = dict(zip(names, (f.decode("utf-8", "replace").strip() for f in fields), strict=False))
        if line.strip() and all(cells.get(k) == v for k, v in row_id.items()):
            fields[names.index(column)] = value
            lines[number - 1] = b"|".join(fields)
            path.write_bytes(b"\n".join(lines))
            return number
    raise AssertionError(f"no row {row_id} in {path.name}")


def insert_row(path: Path, after_line: int, row: bytes) -> int:
    """Insert a data row after `after_line` (1-based); returns the new row's line."""
    lines = _file_lines(path)
    lines.insert(after_line, row)
    path.write_bytes(b"\n".join(lines))
    return after_line + 1


def cut_last_row(path: Path, fields_kept: int) -> int:
    """Truncate the file inside its last row (no newline after it), as an interrupted copy does."""
    lines = _file_lines(path)
    while not lines[-1].strip():
        lines.pop()
    last = lines[-1].split(b"|")
    cut = b"|".join(last[:fields_kept]) + b"|" + last[fields_kept][: max(len(last[fields_kept]) // 2, 1)]
    lines[-1] = cut
    path.write_bytes(b"\n".join(lines))
    return len(lines)
