-- The summary `unit_matchups.json` checks: one row per (scenario, phase), computed by DuckDB over every
-- partition of the unit × unit table (tens of millions of rows, never loaded into pandas). By hand:
--   dataslate sql --json -- "$(cat expectations/unit_matchups.sql)"
-- Counts are of offending rows; 1e-9 absorbs rounding of sums of probabilities.
SELECT
    m.scenario,
    m.phase,
    count(*) AS cells,
    count(*) FILTER (WHERE m.attacker_unit_id IS NULL OR m.target_unit_id IS NULL OR m.attacker_models IS NULL
                        OR m.attacker_faction IS NULL) AS null_keys,
    count(*) FILTER (WHERE NOT (m.p_any BETWEEN 0 AND 1) OR NOT (m.p_wipe BETWEEN 0 AND 1)
                        OR m.p_any IS NULL OR m.p_wipe IS NULL) AS probabilities_outside_0_1,
    count(*) FILTER (WHERE m.p_wipe > m.p_any + 1e-9) AS wipe_above_any,
    count(*) FILTER (WHERE m.models_slain < 0 OR m.models_slain > m.target_models + 1e-9) AS slain_outside_models,
    count(*) FILTER (WHERE m.slain_p90 > m.target_models OR m.slain_p10 > m.slain_p50
                        OR m.slain_p50 > m.slain_p90) AS percentiles_out_of_order,
    count(*) FILTER (WHERE m.wounds_lost < 0 OR m.wounds_lost > m.target_wounds + 1e-9) AS wounds_outside_total,
    count(*) FILTER (WHERE m.points_destroyed < 0 OR m.points_destroyed_per_100 < 0) AS negative_points
FROM unit_matchups m
GROUP BY m.scenario, m.phase
