"""The stages' reports as the manifest receives them.

Every stage returns a typed, frozen report with `as_dict()`; `RunReports` gathers
them for `publish`, which writes them as they are given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class StageReport(Protocol):
    """A stage's report: JSON-ready through `as_dict()` (counts only, no clock)."""

    def as_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunReports:
    """The reports of one run. `parse` is optional: per-source parse reports, when a parser gives them."""

    dedupe: StageReport
    reconcile: StageReport
    damage: StageReport
    store: StageReport
    quality: StageReport
    parse: StageReport | None = None
    loadouts: StageReport | None = None
    unit_loadouts: StageReport | None = None
    matchups: StageReport | None = None

    def as_dict(self) -> dict[str, Any]:
        """The manifest's `reports` (quality has its own manifest key).

        The store's figures sit at the top level (`damage_matrix_in_duckdb`), where
        releases have always had them.
        """
        reports = {"dedupe": self.dedupe.as_dict(), "reconcile": self.reconcile.as_dict()}
        if self.parse is not None:
            reports["parse"] = self.parse.as_dict()
        if self.loadouts is not None:
            reports["loadouts"] = self.loadouts.as_dict()
        if self.unit_loadouts is not None:
            reports["unit_loadouts"] = self.unit_loadouts.as_dict()
        if self.matchups is not None:
            reports["matchups"] = self.matchups.as_dict()
        reports["damage"] = self.damage.as_dict()
        return {**reports, **self.store.as_dict()}
