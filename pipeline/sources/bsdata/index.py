"""BattleScribe folder index: every catalogue of a folder loaded once, ids resolved across files by the
format's scoping rules (docs/sources.md#bsdata-catalogues)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from pipeline import config
from pipeline.sources.inputs import InputRefused, field_too_long, open_input, read_input

Element = Any  # lxml.etree._Element (lxml ships no type stubs here)

SUFFIXES = (".cat", ".gst")

#: Element kinds a `targetId` may point at; indexed by id.
TARGET_TAGS = (
    "selectionEntry",
    "selectionEntryGroup",
    "profile",
    "rule",
    "infoGroup",
    "categoryEntry",
    "profileType",
    "costType",
    "forceEntry",
)

#: Bytes of a file that is not a catalogue kept as its quarantined raw text (cut to MAX_RAW characters).
HEAD_BYTES = 1000

#: Entities stay nodes (their text is read as written, `text.node_text`); no DTD or external
#: entity is ever loaded; `huge_tree` lifts libxml2's depth and size limits (the walk is iterative).
_PARSER_OPTIONS: dict[str, Any] = {
    "remove_comments": True,
    "remove_pis": True,
    "resolve_entities": False,
    "load_dtd": False,
    "dtd_validation": False,
    "attribute_defaults": False,
    "no_network": True,
    "huge_tree": True,
}


def local_name(element: Element) -> str:
    """Tag without its namespace: the schema namespace varies by file kind and version."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def children(element: Element, container: str, tag: str) -> list[Element]:
    """`<container><tag/>...</container>` children of `element`, in any namespace."""
    return [child for box in element.iterchildren(f"{{*}}{container}") for child in box.iterchildren(f"{{*}}{tag}")]


def is_hidden(element: Element | None) -> bool:
    """The static `hidden` attribute (conditional hiding by modifiers is not evaluated)."""
    return element is not None and (element.get("hidden") or "").strip().lower() == "true"


@dataclass(frozen=True)
class CatalogueLink:
    """A `catalogueLink` element: a dependency of one catalogue on another."""

    name: str
    target_id: str
    import_root_entries: bool
    line: int | None


@dataclass
class Catalogue:
    """One `.cat` / `.gst` file: its root element and an id index (or why it is unreadable)."""

    path: Path
    root: Element | None = None
    error: str | None = None
    error_line: int | None = None
    cat_id: str | None = None
    name: str = ""
    is_game_system: bool = False
    is_library: bool = False
    game_system_id: str | None = None
    ids: dict[str, Element] = field(default_factory=dict)
    duplicate_ids: list[str] = field(default_factory=list)
    links: list[CatalogueLink] = field(default_factory=list)
    loaded: bool = False
    #: Refused by `inputs` (not a regular file in the folder, too large): nothing of it is read or published.
    refused: bool = False
    sha256: str = ""
    #: The start of a file that is not a catalogue (malformed, foreign root), kept as its quarantined raw text.
    head: str = ""

    @property
    def source_id(self) -> str:
        return f"bsdata:{self.path.name}"

    @property
    def stable_id(self) -> str:
        """The catalogue's own id (stable across renames); the file name if it has none."""
        return self.cat_id or self.path.stem

    @property
    def faction_name(self) -> str:
        """`Xenos - Orks` -> `Orks`, `Imperium - Astra Militarum - Library` -> `Astra Militarum`.

        BSData names catalogues `<alliance> - <faction>[ - Library]`; the last part
        that is not `Library` is the army's name. Used only when a unit carries no
        `Faction: X` category.
        """
        parts = [p.strip() for p in (self.name or self.path.stem).split(" - ")]
        parts = [p for p in parts if p and p.casefold() != "library"]
        return parts[-1] if parts else self.path.stem


def _peek_root_attributes(path: Path) -> dict[str, str]:
    """Attributes of a file's root element, read without parsing the rest (works on broken files);
    InputRefused for a file that may not be read."""
    with open_input(path) as handle:
        try:
            for _event, element in etree.iterparse(handle, events=("start",), **_PARSER_OPTIONS):
                return dict(element.attrib)
        except (etree.XMLSyntaxError, OSError):
            return {}
    return {}


def _index_ids(catalogue: Catalogue, root: Element) -> None:
    """id -> element for every link target; a repeated id keeps its first definition."""
    tags = tuple(f"{{*}}{t}" for t in TARGET_TAGS)
    for element in root.iter(*tags):
        element_id = element.get("id")
        if element_id is None:
            continue
        if element_id in catalogue.ids:
            catalogue.duplicate_ids.append(element_id)
        else:
            catalogue.ids[element_id] = element


def _read_links(catalogue: Catalogue, root: Element) -> None:
    for link in children(root, "catalogueLinks", "catalogueLink"):
        target = link.get("targetId")
        if target and (link.get("type") or "catalogue") == "catalogue":
            importing = (link.get("importRootEntries") or "").lower() == "true"
            catalogue.links.append(CatalogueLink(link.get("name") or target, target, importing, link.sourceline))


def _describe_root(catalogue: Catalogue, attributes: dict[str, str], tag: str) -> None:
    catalogue.cat_id = attributes.get("id")
    catalogue.name = attributes.get("name") or catalogue.path.stem
    catalogue.is_game_system = tag == "gameSystem" or catalogue.path.suffix.lower() == ".gst"
    catalogue.is_library = (attributes.get("library") or "").lower() == "true"
    catalogue.game_system_id = attributes.get("gameSystemId")


def peek_catalogue(path: Path) -> Catalogue:
    """A catalogue known by its root attributes only (id, name, links are read on `load`)."""
    catalogue = Catalogue(path=path)
    try:
        attributes = _peek_root_attributes(path)
    except InputRefused as refused:
        _refuse(catalogue, refused)
        attributes = {}
    _describe_root(catalogue, attributes, "")
    return catalogue


def _refuse(catalogue: Catalogue, refused: InputRefused) -> None:
    catalogue.error, catalogue.refused, catalogue.loaded = refused.reason, True, True


#: The first text (or attribute value) longer than a limit; two paths, as a union costs minutes.
_LONG_TEXT = etree.XPath("//text()[string-length(.) > $limit][1]")
_LONG_ATTRIBUTE = etree.XPath("//@*[string-length(.) > $limit][1]")


def _long_value(root: Element, data: bytes) -> tuple[str, int | None] | None:
    """(reason, line) of a value above MAX_INPUT_FIELD_CHARS, else None. No value holds a raw `<`
    and a character is at least a byte, so a file whose `<`-free runs are all shorter has none."""
    limit = config.MAX_INPUT_FIELD_CHARS
    if len(max(data.split(b"<"), key=len)) <= limit:
        return None
    found = _LONG_TEXT(root, limit=limit) or _LONG_ATTRIBUTE(root, limit=limit)
    if not found:
        return None
    value = found[0]
    owner = value.getparent()
    what = f"attribute {value.attrname}" if value.is_attribute else "text"
    reason = field_too_long(f"{what} of <{local_name(owner)}>", len(value)) or ""
    return reason, owner.sourceline


def load_catalogue(catalogue: Catalogue) -> Catalogue:
    """Parse a file fully (once); malformed XML or a foreign root element sets `error`."""
    if catalogue.loaded:
        return catalogue
    catalogue.loaded = True
    try:
        read = read_input(catalogue.path)
    except InputRefused as refused:
        _refuse(catalogue, refused)
        return catalogue
    catalogue.sha256 = read.sha256
    head = read.data[:HEAD_BYTES].decode("utf-8", errors="replace")
    try:
        root = etree.fromstring(read.data, etree.XMLParser(**_PARSER_OPTIONS))
    except etree.XMLSyntaxError as exc:
        catalogue.error, catalogue.error_line = f"malformed XML: {exc.msg}", exc.lineno or None
        catalogue.head = head
        return catalogue
    tag = local_name(root)
    _describe_root(catalogue, dict(root.attrib), tag)
    if tag not in {"catalogue", "gameSystem"}:
        catalogue.error, catalogue.error_line = f"not a BattleScribe catalogue: root <{tag}>", root.sourceline
        catalogue.head = head
        return catalogue
    long_value = _long_value(root, read.data)
    if long_value is not None:
        catalogue.error, catalogue.error_line = long_value
        return catalogue
    catalogue.root = root
    _index_ids(catalogue, root)
    _read_links(catalogue, root)
    return catalogue


@dataclass(frozen=True)
class MissingCatalogue:
    """A catalogue (or game system) some catalogue in scope depends on that cannot be used."""

    name: str
    target_id: str
    why: str
    linked_from: str
    line: int | None
    kind: str = "catalogueLink"  # or "gameSystem"


class Scope:
    """The catalogues a catalogue may reference ids in, in resolution order."""

    def __init__(self, catalogues: list[Catalogue], missing: list[MissingCatalogue]) -> None:
        self.catalogues = catalogues
        self.missing = missing
        self._hidden_costs: frozenset[str] | None = None
        self._members: dict[Element, list[tuple[Element | None, Element | None]]] = {}

    def members(self, parent: Element) -> list[tuple[Element | None, Element | None]]:
        """A parent's selectable members: (entry or group, None), or (link target or None, link).

        Memoised for the scope's life: shared entries are listed again by every unit."""
        found = self._members.get(parent)
        if found is None:
            found = [(e, None) for e in children(parent, "selectionEntries", "selectionEntry")]
            found += [(g, None) for g in children(parent, "selectionEntryGroups", "selectionEntryGroup")]
            for link in children(parent, "entryLinks", "entryLink"):
                resolved = self.resolve(link.get("targetId"))
                found.append((resolved[0] if resolved else None, link))
            self._members[parent] = found
        return found

    def resolve(self, target_id: str | None) -> tuple[Element, Catalogue] | None:
        """The element a `targetId` names and the file it is defined in; None if not in scope."""
        if not target_id:
            return None
        for catalogue in self.catalogues:
            element = catalogue.ids.get(target_id)
            if element is not None:
                return element, catalogue
        return None

    def hidden_cost_types(self) -> frozenset[str]:
        """Ids of cost types declared `hidden`: campaign bookkeeping (Crusade Points, ...), not points."""
        if self._hidden_costs is None:
            self._hidden_costs = frozenset(
                cost_id
                for catalogue in self.catalogues
                for cost_id, element in catalogue.ids.items()
                if local_name(element) == "costType" and is_hidden(element)
            )
        return self._hidden_costs

    def missing_names(self) -> list[str]:
        return sorted({m.name for m in self.missing})


class BsdataFolder:
    """All `.cat`/`.gst` files of one folder, looked up by catalogue id.

    Every file's root element is peeked at once (its id and name); a file is parsed
    fully the first time it is needed, and only once: parsing one catalogue loads just
    that catalogue, its game system and the catalogues it links.
    """

    def __init__(self, catalogues: list[Catalogue]) -> None:
        self.catalogues = catalogues
        self.by_id: dict[str, Catalogue] = {}
        for catalogue in catalogues:
            if catalogue.cat_id and catalogue.cat_id not in self.by_id:
                self.by_id[catalogue.cat_id] = catalogue
        self._scopes: dict[Path, Scope] = {}

    def catalogue(self, path: Path) -> Catalogue | None:
        """The folder's catalogue of that file name (never resolved: it may be a refused link)."""
        return next((c for c in self.catalogues if c.path.name == path.name), None)

    def scope(self, catalogue: Catalogue) -> Scope:
        """Own file first, then its game system, then linked catalogues breadth-first."""
        load_catalogue(catalogue)
        if catalogue.path not in self._scopes:
            self._scopes[catalogue.path] = self._build_scope(catalogue)
        return self._scopes[catalogue.path]

    def _dependencies(self, catalogue: Catalogue) -> list[tuple[str, str, int | None, str]]:
        """(name, id, line, kind) of the game system and the catalogues a catalogue links."""
        deps: list[tuple[str, str, int | None, str]] = []
        if not catalogue.is_game_system and catalogue.game_system_id:
            gst = catalogue.game_system_id
            deps.append((f"game system {gst}", gst, None, "gameSystem"))
        deps.extend((link.name, link.target_id, link.line, "catalogueLink") for link in catalogue.links)
        return deps

    def _build_scope(self, start: Catalogue) -> Scope:
        ordered: list[Catalogue] = []
        missing: list[MissingCatalogue] = []
        queue: deque[Catalogue] = deque([start])
        seen = {start.path}
        while queue:
            current = queue.popleft()
            ordered.append(current)
            for name, target_id, line, kind in self._dependencies(current):
                found = self.by_id.get(target_id)
                if found is not None:
                    load_catalogue(found)
                if found is None or found.root is None:
                    why = "not in folder" if found is None else f"unreadable ({found.error})"
                    missing.append(MissingCatalogue(name, target_id, why, current.path.name, line, kind))
                elif found.path not in seen:
                    seen.add(found.path)
                    queue.append(found)
        usable = [c for c in ordered if c.root is not None]
        return Scope(usable, missing)


def catalogue_files(folder: Path) -> list[Path]:
    """The `.cat`/`.gst` entries of a folder, sorted by name (deterministic output order): every one,
    so one that is not a regular file in the folder is refused with a reason, never skipped silently."""
    files = [p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES]
    return sorted(files, key=lambda p: p.name)


def load_folder(folder: Path) -> BsdataFolder:
    """Index the catalogues of a folder (root attributes now, full parse on first use)."""
    return BsdataFolder([peek_catalogue(p) for p in catalogue_files(folder)])
