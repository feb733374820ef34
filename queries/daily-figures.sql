-- Per project and day, the five figures an anomaly is judged on (functions/insights/anomalies.ts),
-- with the report's definitions (docs/report.md): human visitors = visitors_totals.human, page
-- views = views_totals.total, searches = searches_totals.total_searches, assistant questions =
-- rows of assistant_conversations, thumbs down = feedback items with helpful = false.
-- A figure is NULL where its table has no row for the day (its unit may still be complete).
SELECT project_id, strftime(date, '%Y-%m-%d') AS day,
       sum(human) AS human, sum(views) AS views, sum(searches) AS searches,
       sum(questions) AS questions, sum(thumbs_down) AS thumbs_down
FROM (
  SELECT project_id, date, human FROM {{visitors_totals}}
  UNION ALL BY NAME SELECT project_id, date, total AS views FROM {{views_totals}}
  UNION ALL BY NAME SELECT project_id, date, total_searches AS searches FROM {{searches_totals}}
  UNION ALL BY NAME SELECT project_id, date, 1 AS questions FROM {{assistant_conversations}}
  UNION ALL BY NAME SELECT project_id, date, CASE WHEN helpful = false THEN 1 ELSE 0 END AS thumbs_down FROM {{feedback}}
)
GROUP BY ALL
ORDER BY project_id, day;
