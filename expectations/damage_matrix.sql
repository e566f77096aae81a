-- The summary `damage_matrix.json` checks: one row per scenario, computed by DuckDB over the whole
-- matrix (up to ~200 M rows, never loaded into pandas). Run it by hand:
--   dataslate sql --json -- "$(cat expectations/damage_matrix.sql)"
-- The matrix is read as few times as the rules allow (docs/quality.md#speed): one
-- aggregate scan per scenario for the rules comparing columns of a cell, one join with the target
-- units for the three unit rules (which also counts NULL profile ids: that column has no Parquet
-- statistics, so a scan of its own read it whole), one filtered scan for Sustained Hits, and a filtered
-- scan per other NULL or negative rule, which DuckDB skips row group by row group from the Parquet
-- statistics (a clean matrix costs only its min/max values). Counts are of offending values (null_keys, negative_values) or cells.
WITH sustained_hits AS (
    -- The largest Sustained Hits value of each weapon, as the mean of its dice (D3 -> 2), which is
    -- what the engine uses: from the typed rows, or from the ability list of a weapon without typed
    -- rows (the engine falls back to that list too).
    SELECT weapon_id,
           max(CASE
               WHEN regexp_full_match(v, '[0-9]+') THEN CAST(v AS DOUBLE)
               WHEN regexp_full_match(v, '[0-9]*D[0-9]+(\+[0-9]+)?') THEN
                   coalesce(TRY_CAST(regexp_extract(v, '^([0-9]+)D', 1) AS DOUBLE), 1)
                   * (CAST(regexp_extract(v, 'D([0-9]+)', 1) AS DOUBLE) + 1) / 2
                   + coalesce(TRY_CAST(regexp_extract(v, '\+([0-9]+)$', 1) AS DOUBLE), 0)
           END) AS value
    FROM (
        SELECT a.weapon_id, upper(trim(a.value)) AS v
        FROM weapon_abilities a WHERE a.ability = 'sustained_hits'
        UNION ALL
        SELECT w.weapon_id, upper(trim(regexp_extract(w.ability, '^sustained hits (.+)$', 1))) AS v
        FROM (SELECT weapon_id, unnest(abilities) AS ability FROM weapons) w
        WHERE w.ability LIKE 'sustained hits %'
          AND NOT EXISTS (SELECT 1 FROM weapon_abilities a WHERE a.weapon_id = w.weapon_id)
    )
    GROUP BY weapon_id
),
target_units AS (
    -- The unit a cell's models_slain / wounds_lost are against: unit_size models (NULL: 1) of W wounds.
    SELECT profile_id, coalesce(unit_size, 1) AS models, wounds FROM model_profiles
    UNION ALL SELECT profile_id, coalesce(unit_size, 1), wounds FROM reference_profiles
),
scenarios AS (
    -- 1e-9: damage and damage_capped are computed separately; they differ by up to ~1e-14 where equal.
    -- Allocation never adds damage: each damaging attack loses at most min(its damage, W).
    SELECT m.scenario, count(*) AS cells,
           1 - count(m.damage_per_100_points) / count(*) AS null_efficiency_share,
           count(*) FILTER (WHERE m.damage_capped > m.damage + 1e-9) AS cells_capped_above_damage,
           count(*) FILTER (WHERE m.wounds_lost > m.damage_capped + 1e-9) AS cells_lost_above_capped
    FROM damage_matrix m GROUP BY m.scenario
),
against_units AS (
    -- A unit loses at most what it has; a slain model lost all of its wounds. One join for the three
    -- rules; a WHERE prefilter on the cells (models_slain > 0 OR ...) costs more than it saves. LEFT: a
    -- cell without a unit (NULL profile id) is kept, to be counted, and breaks none of the three rules.
    SELECT m.scenario,
           count(*) FILTER (WHERE m.profile_id IS NULL) AS null_profile_ids,
           count(*) FILTER (WHERE m.models_slain > 1 AND m.models_slain > u.models + 1e-9) AS cells_over_unit_models,
           count(*) FILTER (WHERE m.wounds_lost > 1 AND m.wounds_lost > u.models * u.wounds + 1e-9)
               AS cells_over_unit_wounds,
           count(*) FILTER (WHERE m.models_slain > 0 AND m.models_slain * u.wounds > m.wounds_lost + 1e-9)
               AS cells_slain_above_lost
    FROM damage_matrix m LEFT JOIN target_units u USING (profile_id)
    GROUP BY m.scenario
),
extra_hits AS MATERIALIZED (
    -- Cells with more hits than attacks (Sustained Hits weapons only, if the engine is right).
    SELECT m.scenario, m.weapon_id, m.attacks, m.hits FROM damage_matrix m WHERE m.hits > m.attacks + 1e-9
),
too_many_hits AS (
    SELECT h.scenario, count(*) AS cells_with_too_many_hits
    FROM extra_hits h LEFT JOIN sustained_hits s ON s.weapon_id = h.weapon_id
    WHERE h.hits > h.attacks * (1 + coalesce(s.value, 0)) + 1e-9
    GROUP BY h.scenario
),
offending AS (
    SELECT m.scenario, 'null_keys' AS rule FROM damage_matrix m WHERE m.weapon_id IS NULL
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.attacks < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.hits < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.wounds < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.mortal_wounds < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.unsaved < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.damage < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.damage_capped < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.self_mortal_wounds < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.damage_per_100_points < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.models_slain < 0
    UNION ALL SELECT m.scenario, 'negative_values' FROM damage_matrix m WHERE m.wounds_lost < 0
),
offending_counts AS (
    SELECT o.scenario,
           count(*) FILTER (WHERE o.rule = 'null_keys') AS null_keys,
           count(*) FILTER (WHERE o.rule = 'negative_values') AS negative_values
    FROM offending o GROUP BY o.scenario
)
SELECT
    c.scenario,
    c.cells,
    coalesce(o.null_keys, 0) + coalesce(u.null_profile_ids, 0) AS null_keys,
    coalesce(o.negative_values, 0) AS negative_values,
    c.cells_capped_above_damage,
    coalesce(h.cells_with_too_many_hits, 0) AS cells_with_too_many_hits,
    c.cells_lost_above_capped,
    coalesce(u.cells_over_unit_models, 0) AS cells_over_unit_models,
    coalesce(u.cells_over_unit_wounds, 0) AS cells_over_unit_wounds,
    coalesce(u.cells_slain_above_lost, 0) AS cells_slain_above_lost,
    c.null_efficiency_share
FROM scenarios c
LEFT JOIN offending_counts o ON o.scenario IS NOT DISTINCT FROM c.scenario
LEFT JOIN against_units u ON u.scenario IS NOT DISTINCT FROM c.scenario
LEFT JOIN too_many_hits h ON h.scenario IS NOT DISTINCT FROM c.scenario
