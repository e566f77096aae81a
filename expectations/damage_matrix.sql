-- The summary `damage_matrix.json` checks: one row per scenario, computed by DuckDB over the
-- whole matrix (up to ~200 M rows, never loaded into pandas). Each count is of offending cells.
-- Run it by hand: dataslate sql "$(cat expectations/damage_matrix.sql)"
WITH sustained_hits AS (
    -- The largest Sustained Hits value of each weapon, as the mean of its dice (D3 -> 2), which
    -- is what the engine uses: from the typed rows, or from the ability list of a weapon
    -- without typed rows (the engine falls back to that list too).
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
)
SELECT
    m.scenario,
    count(*) AS cells,
    count(*) FILTER (WHERE m.weapon_id IS NULL OR m.profile_id IS NULL) AS cells_with_null_key,
    count(*) FILTER (
        WHERE m.attacks < 0 OR m.hits < 0 OR m.wounds < 0 OR m.mortal_wounds < 0 OR m.unsaved < 0
           OR m.damage < 0 OR m.damage_capped < 0 OR m.self_mortal_wounds < 0 OR m.damage_per_100_points < 0
    ) AS cells_with_negative_value,
    -- 1e-9: the two columns are computed separately; they differ by up to ~1e-14 where equal.
    count(*) FILTER (WHERE m.damage_capped > m.damage + 1e-9) AS cells_capped_above_damage,
    count(*) FILTER (WHERE m.hits > m.attacks * (1 + coalesce(s.value, 0)) + 1e-9) AS cells_with_too_many_hits,
    avg(CASE WHEN m.damage_per_100_points IS NULL THEN 1.0 ELSE 0.0 END) AS null_efficiency_share
FROM damage_matrix m
LEFT JOIN sustained_hits s ON s.weapon_id = m.weapon_id
GROUP BY m.scenario
