"""The golden rows `sides.py` reads, from any table reader: the run's frames or a release's Parquet."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pipeline.matchups.sides import GoldenTables

#: table name, columns wanted -> rows as dicts.
Reader = Callable[[str, Sequence[str]], list[dict[str, Any]]]

UNIT_COLUMNS = ("unit_id", "name", "faction", "datasheet_ids")
PROFILE_COLUMNS = (
    "unit_id", "profile_name", "toughness", "save", "invuln", "invuln_condition", "invuln_melee", "wounds", "fnp",
    "damage_reduction", "halve_damage", "keywords",
)  # fmt: skip
WEAPON_COLUMNS = ("unit_id", "weapon_id", "name", "kind", "attacks", "skill", "strength", "ap", "damage", "abilities")
POINTS_COLUMNS = ("unit_id", "models", "cost", "description", "composition")
LOADOUT_COLUMNS = (
    "unit_id", "models", "option", "model_group", "profile_name", "model_count", "weapon_id", "per_model",
    "profile_group",
)  # fmt: skip
#: Unit keywords the engine reads: Anti's targets and the Pistol rule.
UNIT_KEYWORDS = frozenset({"INFANTRY", "VEHICLE", "MONSTER", "CHARACTER", "FLY", "PSYKER", "TITANIC", "MOUNTED",
                           "BEAST", "SWARM", "WALKER", "AIRCRAFT", "TOWERING", "DAEMON"})  # fmt: skip


def golden_tables(read: Reader) -> GoldenTables:
    """Golden units, profiles, weapons, points, loadouts; Leader pairs as unit ids; Stealth and unit keywords
    from the units' datasheets (abilities named Stealth; unit-wide keywords)."""
    units = read("units", UNIT_COLUMNS)
    unit_of = {str(d): str(u["unit_id"]) for u in units for d in u["datasheet_ids"] or ()}
    pairs = {
        (unit_of[str(r["leader_id"])], unit_of[str(r["attached_id"])])
        for r in read("leaders", ("leader_id", "attached_id"))
        if str(r["leader_id"]) in unit_of and str(r["attached_id"]) in unit_of
    }
    stealth = frozenset(
        unit_of[str(r["datasheet_id"])]
        for r in read("abilities", ("datasheet_id", "name"))
        if str(r["name"]).strip().casefold() == "stealth" and str(r["datasheet_id"]) in unit_of
    )
    keywords: dict[str, set[str]] = defaultdict(set)
    for r in read("keywords", ("datasheet_id", "keyword", "model")):
        word = str(r["keyword"]).upper()
        if word in UNIT_KEYWORDS and r["model"] is None and str(r["datasheet_id"]) in unit_of:
            keywords[unit_of[str(r["datasheet_id"])]].add(word)
    return GoldenTables(
        units=units,
        profiles=read("unit_profiles", PROFILE_COLUMNS),
        weapons=read("unit_weapons", WEAPON_COLUMNS),
        points=read("unit_points", POINTS_COLUMNS),
        loadouts=read("unit_loadouts", LOADOUT_COLUMNS),
        leader_pairs=sorted(p for p in pairs if p[0] != p[1]),
        stealth=stealth,
        unit_keywords={k: frozenset(v) for k, v in keywords.items()},
    )
