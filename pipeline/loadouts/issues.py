"""The reason classes of `loadout_issues` and a collector that keeps one issue per (reason, detail)."""

from __future__ import annotations

from dataclasses import dataclass, field

from schemas.records import IssueSeverity, LoadoutIssue

NO_OPTION = "no points option"
NO_STATEMENT = "no loadout statement"
OPTION_MISFIT = "option does not fit the composition"
NO_PROFILE = "no model profile for a part"
UNKNOWN_ITEM = "item names no weapon"
UNCOVERED = "models without a loadout statement"
UNMATCHED_SUBJECT = "statement names no model of the unit"
OVERDRAWN = "statement counts more models than the option has"
NOTHING_CARRIED = "default loadout carries no weapon"
ASSUMED_ONE_EACH = "no loadout text: one of each weapon assumed"
OPEN_CHOICE = "required weapon choice without a default"
STALE_DEFAULT = "required weapon choice whose default id names nothing"
UNPUBLISHED_WEAPON = "default weapon not published"
UNIT_LEVEL = "unit-level wargear in a unit of several model kinds"


@dataclass
class Issues:
    """Issues of one datasheet, in the order met; `unresolved` once any issue of that severity is added."""

    datasheet_id: str
    raw: str | None
    found: dict[tuple[str, str], LoadoutIssue] = field(default_factory=dict)
    source_id: str | None = None
    line: int | None = None

    def add(self, reason: str, detail: str, severity: IssueSeverity = "unresolved") -> None:
        if (reason, detail) not in self.found:
            self.found[(reason, detail)] = LoadoutIssue(
                datasheet_id=self.datasheet_id, reason=reason, detail=detail, severity=severity,
                raw=self.raw, source_id=self.source_id, line=self.line,
            )  # fmt: skip

    @property
    def unresolved(self) -> bool:
        return any(i.severity == "unresolved" for i in self.found.values())

    def records(self) -> list[LoadoutIssue]:
        return list(self.found.values())
