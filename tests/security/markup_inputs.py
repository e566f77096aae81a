"""Inputs of every format with markup and entities in every kind of text field, built in a temporary folder
from the seeds, a slice of the real Wahapedia export and three real BSData catalogues (never copied into
the repository). After stripping, the payload leaves the word `XSS` where it was, so a test can see
which columns it reached."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from lxml import etree

from pipeline import config
from tests.publish.wahapedia_subset import write_subset

#: Tags, an event handler, entity-encoded tags (decoded in HTML fields) and a tag that removing an inner
#: one would reassemble: each must end as plain text.
PAYLOAD = "<b>XSS</b><img src=x onerror=alert(1)>&lt;script&gt;XSS&lt;/script&gt;<scr<i></i>ipt>XSS"
MARK = "XSS"

#: Wahapedia columns left alone: keys, numbers, dice and the enumerations a row is sorted by.
WAHAPEDIA_KEPT = re.compile(
    r"^(id|.*_id|line|line_in_wargear|dice|M|T|Sv|inv_sv|W|Ld|OC|cost|cp_cost|range|A|BS_WS|S|AP|D|virtual"
    r"|is_faction_keyword|edition|version|errata_date)$"
)
WAHAPEDIA_ENUMS = {("Datasheets_wargear.csv", "type"), ("Datasheets_abilities.csv", "type")}

#: BSData elements whose `name` is text a reader sees (unit, weapon, ability, keyword, rule names).
BSDATA_NAMED = {
    "selectionEntry",
    "selectionEntryGroup",
    "entryLink",
    "profile",
    "rule",
    "infoLink",
    "categoryEntry",
    "categoryLink",
}
#: Characteristics holding prose (statline and weapon characteristics are numbers and dice).
BSDATA_PROSE = {"Description", "Keywords", "Ability", "Abilities"}
BSDATA_FILES = ("Chaos - Titanicus Traitoris.cat", "Library - Titans.cat", "Warhammer 40,000.gst")


def _inject_cell(value: str) -> str:
    """The payload after the value and after every bold label (`<b>TARGET:</b>`) of an HTML cell."""
    return value.replace("</b>", "</b>" + PAYLOAD) + PAYLOAD


def _inject_table(path: Path) -> None:
    header, *rows = path.read_text(encoding="utf-8-sig").split("\n")
    columns = [c.strip() for c in header.split("|")]
    injected = [
        i for i, c in enumerate(columns) if c and not WAHAPEDIA_KEPT.match(c) and (path.name, c) not in WAHAPEDIA_ENUMS
    ]
    out = [header]
    for row in rows:
        cells = row.split("|")
        if len(cells) == len(columns):
            for i in injected:
                cells[i] = _inject_cell(cells[i])
        out.append("|".join(cells))
    path.write_text("\ufeff" + "\n".join(out), encoding="utf-8")


def wahapedia_with_markup(wahapedia_dir: Path, target: Path) -> Path:
    folder = write_subset(wahapedia_dir, target)
    for table in sorted(folder.glob("*.csv")):
        _inject_table(table)
    return folder


def _inject_page_line(line: str) -> str:
    """Markup into each text cell of a table row, after a `Name:` label, and into headings and lists."""
    if line.startswith("|"):
        cells = line.split("|")
        return "|".join(c + PAYLOAD if re.search(r"[A-Za-z]{3}", c) else c for c in cells)
    if re.match(r"^[^:]{2,60}: ", line):
        name, text = line.split(": ", 1)
        return f"{name}{PAYLOAD}: {text}{PAYLOAD}"
    if line.startswith("- ") or " – " in line:
        return line + PAYLOAD
    if re.fullmatch(r"[A-Z][A-Z’' !-]{3,}", line) and line not in {"ABILITIES", "STRATAGEMS", "KEYWORDS"}:
        return line + PAYLOAD.upper()
    return line


def pages_with_markup(target: Path) -> Path:
    target.mkdir(parents=True)
    for seed in sorted(config.RAW_PAGES_DIR.glob("*.txt")):
        lines = seed.read_text(encoding="utf-8").split("\n")
        (target / seed.name).write_text("\n".join(_inject_page_line(line) for line in lines), encoding="utf-8")
    return target


def _local(element: etree._Element) -> str:
    return element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""


def _inject_catalogue(path: Path) -> None:
    tree = etree.parse(str(path))
    for element in tree.getroot().iter():
        tag = _local(element)
        if tag in BSDATA_NAMED and element.get("name"):
            element.set("name", element.get("name", "") + PAYLOAD)
        prose = tag == "characteristic" and element.get("name") in BSDATA_PROSE
        if (prose or tag == "description") and element.text:
            element.text = element.text + PAYLOAD
    tree.write(str(path), encoding="utf-8", xml_declaration=True)


def bsdata_with_markup(bsdata_dir: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for name in BSDATA_FILES:
        shutil.copy(bsdata_dir / name, target / name)
        _inject_catalogue(target / name)
    return target
