"""The `findings` table: data-quality findings a maintainer of a source can act on.

Categories, rules and severities: docs/findings.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.records import UNIT_ID_PATTERN, Record

FINDING_ID_PATTERN = r"^finding:[a-z_]+:[0-9a-f]{16}$"

Category = Literal[
    "weapon_profile_differs",
    "weapon_abilities_differ",
    "weapon_profile_in_datasheet",
    "points_fall",
    "points_size_twice",
    "invuln_one_source",
    "characteristic_typo",
    "unit_without_weapons",
    "source_conflict",
    "self_check_shortfall",
]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


class Finding(Record):
    """One data-quality finding: what looks wrong, where a maintainer would fix it, the values involved."""

    TABLE = "findings"
    KEY = ("finding_id",)

    finding_id: str = Field(
        pattern=FINDING_ID_PATTERN,
        description="`finding:<category>:<hash>` of the category, the stable ids of where it is and the subject.",
    )
    category: Category = Field(description="The rule that found it (docs/findings.md).")
    severity: Severity = Field(description="`error` (wrong), `warning` (likely wrong), `info` (to look at).")
    location: str | None = Field(
        default=None, description="Where to fix it: `<file>:<line>` and, for XML, the element id; `; ` between places."
    )
    unit_id: str | None = Field(default=None, pattern=UNIT_ID_PATTERN, description="The unit, when one unit.")
    unit_ids: list[str] = Field(default_factory=list, description="Every unit the finding involves.")
    subject: str = Field(description="What is wrong: the weapon, the points option, the field, the check.")
    values: dict[str, str | int | None] = Field(default_factory=dict, description="The values involved, by place.")
    message: str = Field(min_length=1, description="One line for a person.")
    first_seen_version: str = Field(
        pattern=r"^v[0-9a-f]{12}$", description="First release (in the same output folder) that had this finding."
    )
