SELECT date, project_id, human, ai, total,
       round(100.0 * ai / nullif(human + ai, 0), 1) AS ai_share_pct
FROM {{views_totals}}
WHERE dt >= {{days_ago:30}}
ORDER BY date, project_id;
