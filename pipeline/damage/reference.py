"""The reference target profiles shipped with the project (`reference_profiles` table), and their stage.

Standard archetypes (GEQ, MEQ, TEQ, ...) give every weapon a comparable row even
in a seeds-only run; they live in `reference_profiles.json` next to this module
so they are data, documented with their stats, not code. They are damage targets
first, so they belong to the damage package; `reference_stage` adds them to the
dataset before the integrity pass, like any other table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import config
from pipeline.damage.inputs import targets_frame
from pipeline.dataset import Dataset, Staged
from schemas.records import ReferenceProfile

SOURCE_ID = f"reference:{config.REFERENCE_PROFILES_FILE.name}"


def load_reference_profiles(path: Path = config.REFERENCE_PROFILES_FILE) -> list[ReferenceProfile]:
    """The shipped reference profiles as validated records (a bad file fails loudly: it is ours)."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return [
        ReferenceProfile(**entry, source_id=SOURCE_ID, line=position)
        for position, entry in enumerate(document["profiles"], start=1)
    ]


def reference_targets_frame(path: Path = config.REFERENCE_PROFILES_FILE) -> pl.DataFrame:
    """The reference profiles as a targets frame for the engine."""
    return targets_frame(load_reference_profiles(path))


@dataclass(frozen=True)
class ReferenceReport:
    """Which reference profiles the run added (not in the manifest: the table itself is published)."""

    profile_ids: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"profiles": len(self.profile_ids), "profile_ids": list(self.profile_ids)}


def reference_stage(dataset: Dataset, path: Path = config.REFERENCE_PROFILES_FILE) -> Staged[ReferenceReport]:
    """A new dataset with the shipped reference profiles added to `reference_profiles`."""
    profiles = load_reference_profiles(path)
    return Staged(dataset.adding(profiles), ReferenceReport(tuple(p.profile_id for p in profiles)))
