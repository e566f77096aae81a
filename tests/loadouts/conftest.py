"""The loadouts stage run once per session on the real Wahapedia export (and the page seeds)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from pipeline.dataset import Dataset
from pipeline.loadouts.report import LoadoutReport
from pipeline.loadouts.stage import loadouts_stage
from pipeline.sources.registry import read_inputs
from schemas.records import Datasheet, DatasheetLoadout, LoadoutIssue, Weapon


class Loadouts:
    """Rows and issues of a run, looked up the way the tests read them."""

    def __init__(self, dataset: Dataset, report: LoadoutReport) -> None:
        self.report = report
        self.rows: dict[str, list[DatasheetLoadout]] = defaultdict(list)
        for row in dataset.records(DatasheetLoadout):
            self.rows[row.datasheet_id].append(row)
        self.issues: dict[str, list[LoadoutIssue]] = defaultdict(list)
        for issue in dataset.records(LoadoutIssue):
            self.issues[issue.datasheet_id].append(issue)
        self.weapon_names = {w.weapon_id: w.name for w in dataset.records(Weapon)}
        self.sheets = {(d.source_id, d.name): d.datasheet_id for d in dataset.records(Datasheet)}

    def sheet(self, file_name: str, name: str) -> str:
        """datasheet_id of a BSData unit by its file and name."""
        return self.sheets[(f"bsdata:{file_name}", name)]

    def option(self, datasheet_id: str, models: int) -> dict[str, dict[str, object]]:
        """model_group -> {profile, count, order, weapons: {weapon name: per_model}} of one option."""
        groups: dict[str, dict[str, object]] = {}
        for row in self.rows[datasheet_id]:
            if row.models != models:
                continue
            group = groups.setdefault(
                row.model_group,
                {"profile": row.profile_name, "count": row.model_count, "order": row.allocation_order, "weapons": {}},
            )
            weapons = group["weapons"]
            assert isinstance(weapons, dict)
            weapons[self.weapon_names[row.weapon_id]] = row.per_model
        return groups

    def reasons(self, datasheet_id: str) -> set[tuple[str, str]]:
        return {(i.reason, i.severity) for i in self.issues[datasheet_id]}


@pytest.fixture(scope="session")
def text_loadouts(wahapedia_dir: Path, pages_dir: Path) -> Loadouts:
    parsed = read_inputs([wahapedia_dir, pages_dir])
    staged = loadouts_stage(parsed.dataset)
    return Loadouts(staged.dataset, staged.report)


@pytest.fixture(scope="session")
def bsdata_loadouts(bsdata_dir: Path) -> Loadouts:
    """BSData's loadouts come from its parser; the stage only reports on them."""
    staged = loadouts_stage(read_inputs([bsdata_dir]).dataset)
    return Loadouts(staged.dataset, staged.report)
