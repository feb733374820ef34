-- Per project and day, every headline count: the report's cards, per-project table and
-- visitors chart add these up. Visitors are the API's daily site totals (never pages summed);
-- visitors_total is deduplicated across human and AI, so it can be less than human + ai.
-- Views, searches, questions, unanswered and thumbs down are each one table's own count; a
-- figure is NULL where its table has no row for the project's day (its unit may still be
-- complete: the anomaly check reads these too).
SELECT project_id, dt,
       sum(human) AS human, sum(ai) AS ai, sum(visitors_total) AS visitors_total, sum(visitor_rows) AS visitor_rows,
       sum(views) AS views, sum(searches) AS searches,
       sum(questions) AS questions, sum(unanswered) AS unanswered, sum(thumbs_down) AS thumbs_down
FROM (
  SELECT project_id, dt, human, ai, total AS visitors_total, 1 AS visitor_rows,
         CAST(NULL AS bigint) AS views, CAST(NULL AS bigint) AS searches, CAST(NULL AS bigint) AS questions,
         CAST(NULL AS bigint) AS unanswered, CAST(NULL AS bigint) AS thumbs_down
  FROM {{visitors_totals}} WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  UNION ALL
  SELECT project_id, dt, NULL, NULL, NULL, NULL, total, NULL, NULL, NULL, NULL
  FROM {{views_totals}} WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  UNION ALL
  SELECT project_id, dt, NULL, NULL, NULL, NULL, NULL, total_searches, NULL, NULL, NULL
  FROM {{searches_totals}} WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  UNION ALL
  SELECT project_id, dt, NULL, NULL, NULL, NULL, NULL, NULL, 1, CASE WHEN resolution_status = 'unanswered' THEN 1 ELSE 0 END, NULL
  FROM {{assistant_conversations}} WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  UNION ALL
  SELECT project_id, dt, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, CASE WHEN helpful = false THEN 1 ELSE 0 END
  FROM {{feedback}} WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
) AS counts
GROUP BY project_id, dt
ORDER BY dt, project_id;
