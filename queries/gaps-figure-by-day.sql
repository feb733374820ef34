-- The figure of each wanted gap (the temporary table wanted_gaps: gap_id, kind, project_id, key)
-- per UTC day, as the gap questions count it: unanswered questions of the category; searches of
-- the term on days nobody clicked a result; thumbs down on the page. A day without a row: 0.
-- DuckDB only (GROUP BY ALL, strftime, a temporary table): queries/questions.ts never saves it in Athena.
WITH figures AS (
  SELECT 'unanswered_category' AS kind, project_id, coalesce(query_category, '') AS key, date AS day, count(*) AS figure
  FROM {{assistant_conversations}} WHERE resolution_status = 'unanswered'
  GROUP BY ALL
  UNION ALL
  SELECT 'search_without_clicks', project_id, lower(search_query), date, sum(hits)
  FROM {{searches}} WHERE top_clicked_page IS NULL
  GROUP BY ALL
  UNION ALL
  SELECT 'thumbs_down_page', project_id, path, date, count(*)
  FROM {{feedback}} WHERE helpful = false
  GROUP BY ALL
)
SELECT w.gap_id, strftime(f.day, '%Y-%m-%d') AS day, f.figure
FROM figures f
JOIN wanted_gaps w ON w.kind = f.kind AND w.project_id = f.project_id AND w.key = f.key
