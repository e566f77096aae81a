"""Elements named by (file name, position in document order), so one file's `CheckLedger` can be stored as JSON
and read back onto the same folder's trees (docs/sources.md#incremental)."""

from __future__ import annotations

from typing import Any

from pipeline.sources.bsdata.checks import CHECKS, CheckLedger
from pipeline.sources.bsdata.index import BsdataFolder, Element, Scope

#: An element's name in a stored ledger: [file name, child index, child index, ...] from the file's root.
Position = list[Any]


class FolderPositions:
    """Position <-> element on the loaded catalogues of one folder (a path of child indices: no file is
    walked whole, an element is found in as many steps as it is deep)."""

    def __init__(self, folder: BsdataFolder) -> None:
        self.folder = folder
        self._children: dict[Element, dict[Element, int]] = {}
        self._roots: dict[str, Element] = {}  # file name -> root, of the files loaded so far
        self._names: dict[int, str] = {}  # id of a root -> its file name

    def _index_in(self, parent: Element, child: Element) -> int:
        if parent not in self._children:
            self._children[parent] = {node: i for i, node in enumerate(parent)}
        return self._children[parent][child]

    def _refresh(self) -> None:
        """Files are loaded as the parse needs them: look again."""
        loaded = [c for c in reversed(self.folder.catalogues) if c.root is not None]
        self._roots = {c.path.name: c.root for c in loaded}
        self._names = {id(c.root): c.path.name for c in loaded}

    def _root(self, name: str) -> Element:
        if name not in self._roots:
            self._refresh()
        return self._roots[name]  # KeyError: no such file loaded

    def _name(self, root: Element) -> str:
        if id(root) not in self._names:
            self._refresh()
        return self._names[id(root)]

    def position(self, element: Element) -> Position:
        path: list[int] = []
        node, parent = element, element.getparent()
        while parent is not None:
            path.append(self._index_in(parent, node))
            node, parent = parent, parent.getparent()
        return [self._name(node), *reversed(path)]

    def element(self, position: Position) -> Element:
        """The element at a stored position; KeyError, IndexError or TypeError for one not in this folder."""
        name, *path = position
        node = self._root(str(name))
        for index in path:
            if not isinstance(index, int) or index < 0:
                raise IndexError(f"bad position {position!r}")
            node = node[index]
        return node


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
        for *where, why in data["explained"][check]:
            ledger.explain(check, positions.element(where), str(why))
        for *where, why in data["problems"][check]:
            ledger.problem(check, positions.element(where), str(why))
    ledger.visited = {positions.element(p) for p in data["visited"]}
    for *where, why in data["skips"]:
        ledger.skip(positions.element(where), str(why), scope)
    return ledger
