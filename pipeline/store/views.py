"""Documented SQL views for the questions users ask most.

Each view's SQL is here and in the README; `dataslate sql` and any DuckDB client
can query them.
"""

from __future__ import annotations

import duckdb

#: name -> (what it answers, SQL)
VIEWS: dict[str, tuple[str, str]] = {
    "v_unit_cards": (
        "One row per unit: its golden statline (main model), cheapest points option, golden weapon names.",
        """
        SELECT u.unit_id, u.faction, u.name, u.legend, u.legend_tag, u.role, u.role_source,
               u.movement, u.toughness, u.save, u.invuln, u.invuln_condition, u.wounds, u.leadership, u.oc,
               (SELECT p.fnp FROM unit_profiles p WHERE p.unit_id = u.unit_id AND p.position = 1) AS fnp,
               u.points, u.points_models AS models,
               (SELECT list(w.name || ' (' || w.kind || ')' ORDER BY w.kind DESC, w.name)
                  FROM unit_weapons w WHERE w.unit_id = u.unit_id) AS weapons,
               len(u.datasheet_ids) AS datasheets, u.sources, u.home_unit_id
        FROM units u
        """,
    ),
    "v_weapon_profiles": (
        "Every weapon row of every unit (a copy's inherited ones too), with `golden` marking the unit's chosen row.",
        """
        WITH pairs AS (
            SELECT d.unit_id, w.weapon_id FROM weapons w JOIN datasheets d USING (datasheet_id)
            UNION
            SELECT unit_id, weapon_id FROM unit_weapons
        )
        SELECT w.weapon_id, p.unit_id, w.datasheet_id, w.source_id, u.faction, u.name AS unit, u.legend,
               coalesce(g.name, w.name) AS weapon, w.kind, w.range_inches, w.attacks, w.skill, w.strength, w.ap,
               w.damage, array_to_string(w.abilities, ', ') AS abilities, g.weapon_id IS NOT NULL AS golden
        FROM pairs p
        JOIN weapons w USING (weapon_id)
        JOIN units u USING (unit_id)
        LEFT JOIN unit_weapons g ON g.unit_id = p.unit_id AND g.weapon_id = p.weapon_id
        """,
    ),
    "v_quarantine_summary": (
        "Quarantined fragments counted by source, stage and reason.",
        """
        SELECT source_id, stage, reason, count(*) AS rows
        FROM quarantine GROUP BY ALL ORDER BY rows DESC, source_id, reason
        """,
    ),
}

#: Views created with the damage matrix (kept there so that a store rebuilt around a new matrix
#: recreates them); this one reads `damage_vs_reference`, the reference slice, not the matrix.
DAMAGE_VIEWS: dict[str, tuple[str, str]] = {
    "v_weapon_vs_reference": (
        "Expected damage of every weapon of every unit against each reference profile, per scenario.",
        """
        SELECT u.faction, u.name AS unit, u.legend, coalesce(g.name, w.name) AS weapon, w.kind, r.name AS target,
               m.scenario,
               m.attacks, m.hits, m.wounds, m.mortal_wounds, m.unsaved, m.damage, m.damage_capped,
               m.self_mortal_wounds, m.damage_per_100_points, m.golden,
               m.unit_id, m.datasheet_id, m.source_id, m.weapon_id, m.profile_id
        FROM damage_vs_reference m
        JOIN weapons w USING (weapon_id)
        JOIN units u USING (unit_id)
        JOIN reference_profiles r ON r.profile_id = m.profile_id
        LEFT JOIN unit_weapons g ON g.unit_id = m.unit_id AND g.weapon_id = m.weapon_id
        """,
    ),
}


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    for name, (_, sql) in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")


def create_damage_views(con: duckdb.DuckDBPyConnection) -> None:
    for name, (_, sql) in DAMAGE_VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
