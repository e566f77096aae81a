"""Elements named by (file name, position in document order), so one file's `CheckLedger` can be stored as JSON
and read back onto the same folder's trees (docs/sources.md#incremental)."""

from __future__ import annotations

from typing import Any

from pipeline.sources.bsdata.checks import CHECKS, CheckLedger
from pipeline.sources.bsdata.index import BsdataFolder, Element, Scope

#: An element's name in a stored ledger: [file name, position in `root.iter()`].
Position = list[Any]


class FolderPositions:
    """Position <-> element for the loaded catalogues of one folder, each file's map built on first use."""

    def __init__(self, folder: BsdataFolder) -> None:
        self.folder = folder
        self._index: dict[str, dict[Element, int]] = {}
        self._elements: dict[str, list[Element]] = {}

    def _listed(self, name: str) -> list[Element]:
        """Every element of a loaded file, in document order (KeyError for a file not loaded in the folder)."""
        if name not in self._elements:
            roots = [c.root for c in self.folder.catalogues if c.path.name == name and c.root is not None]
            if not roots:
                raise KeyError(f"no catalogue {name!r} loaded")
            self._elements[name] = list(roots[0].iter())
        return self._elements[name]

    def position(self, element: Element) -> Position:
        root = element.getroottree().getroot()
        name = next(c.path.name for c in self.folder.catalogues if c.root is root)
        if name not in self._index:
            self._index[name] = {e: i for i, e in enumerate(self._listed(name))}
        return [name, self._index[name][element]]

    def element(self, position: Position) -> Element:
        """The element at a stored position; KeyError, IndexError or TypeError for one not in this folder."""
        name, index = position
        if not isinstance(index, int) or index < 0:
            raise IndexError(f"bad position {position!r}")
        return self._listed(str(name))[index]


def encode_ledger(ledger: CheckLedger, positions: FolderPositions) -> dict[str, Any]:
    """One file's ledger as JSON (its skips all use the file's own scope, restored by `decode_ledger`)."""

    def named(elements: set[Element]) -> list[Position]:
        return sorted(positions.position(e) for e in elements)

    def reasons(found: dict[Element, str]) -> list[Position]:
        return [[*positions.position(e), why] for e, why in found.items()]  # in call order: the first reason wins

    return {
        "published": {c: named(ledger.published[c]) for c in CHECKS},
        "explained": {c: reasons(ledger.explained[c]) for c in CHECKS},
        "problems": {c: reasons(ledger.problems[c]) for c in CHECKS},
        "visited": named(ledger.visited),
        "skips": [[*positions.position(e), why] for e, why, _scope in ledger.skips()],
    }


def decode_ledger(data: dict[str, Any], positions: FolderPositions, scope: Scope) -> CheckLedger:
    """The ledger `encode_ledger` stored, on this folder's elements (errors as `FolderPositions.element`)."""
    ledger = CheckLedger()
    for check in CHECKS:
        ledger.published[check] = {positions.element(p) for p in data["published"][check]}
        for name, index, why in data["explained"][check]:
            ledger.explain(check, positions.element([name, index]), str(why))
        for name, index, why in data["problems"][check]:
            ledger.problem(check, positions.element([name, index]), str(why))
    ledger.visited = {positions.element(p) for p in data["visited"]}
    for name, index, why in data["skips"]:
        ledger.skip(positions.element([name, index]), str(why), scope)
    return ledger
