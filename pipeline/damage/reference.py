"""The reference target profiles shipped with the project (`reference_profiles` table).

Standard archetypes (GEQ, MEQ, TEQ, ...) give every weapon a comparable row even
in a seeds-only run; they live in `reference_profiles.json` next to this module
so they are data, documented with their stats, not code.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from pipeline import config
from pipeline.damage.inputs import targets_frame
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
