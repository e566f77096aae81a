"""Documented SQL views for the questions users ask most.

Each view's SQL is here and in the README; `dataslate sql` and any DuckDB client
can query them.
"""

from __future__ import annotations

import duckdb

#: name -> (what it answers, SQL)
VIEWS: dict[str, tuple[str, str]] = {
    "v_unit_cards": (
        "One row per datasheet: statline of its first model, cheapest points option, weapon names.",
        """
        SELECT d.datasheet_id, d.unit_id, d.source_id, d.faction, d.name, d.role,
               m.movement, m.toughness, m.save, m.invuln, m.invuln_condition, m.wounds,
               m.leadership, m.oc, m.fnp,
               (SELECT min_by(p.cost, p.models) FROM points p WHERE p.datasheet_id = d.datasheet_id)
                   AS points,
               (SELECT min(p.models) FROM points p WHERE p.datasheet_id = d.datasheet_id) AS models,
               (SELECT list(w.name || ' (' || w.kind || ')' ORDER BY w.kind DESC, w.name)
                  FROM weapons w WHERE w.datasheet_id = d.datasheet_id) AS weapons
        FROM datasheets d
        LEFT JOIN (
            SELECT * FROM model_profiles
            QUALIFY row_number() OVER (PARTITION BY datasheet_id ORDER BY line NULLS LAST, profile_id) = 1
        ) m USING (datasheet_id)
        """,
    ),
    "v_weapon_profiles": (
        "Weapons with their datasheet, faction and ability list as one string.",
        """
        SELECT w.weapon_id, d.faction, d.name AS unit, w.name AS weapon, w.kind, w.range_inches,
               w.attacks, w.skill, w.strength, w.ap, w.damage, array_to_string(w.abilities, ', ') AS abilities
        FROM weapons w JOIN datasheets d USING (datasheet_id)
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

#: Views that need the damage matrix (created once it exists).
DAMAGE_VIEWS: dict[str, tuple[str, str]] = {
    "v_weapon_vs_reference": (
        "Expected damage of every weapon against each reference profile, per scenario.",
        """
        SELECT d.faction, d.name AS unit, w.name AS weapon, w.kind, r.name AS target, m.scenario,
               m.attacks, m.hits, m.wounds, m.mortal_wounds, m.unsaved, m.damage, m.damage_capped,
               m.self_mortal_wounds, m.damage_per_100_points, m.weapon_id, m.profile_id
        FROM damage_matrix m
        JOIN weapons w USING (weapon_id)
        JOIN datasheets d USING (datasheet_id)
        JOIN reference_profiles r ON r.profile_id = m.profile_id
        """,
    ),
}


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    for name, (_, sql) in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")


def create_damage_views(con: duckdb.DuckDBPyConnection) -> None:
    for name, (_, sql) in DAMAGE_VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
