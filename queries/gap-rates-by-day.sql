-- The rate of each wanted gap (the temporary table rate_gaps: gap_id, kind, project_id, key) per
-- UTC day: its signal and its exposure, whose quotient is the rate a fix is judged by (gaps/effect.ts):
-- thumbs down on the page ÷ its human views; searches of the term on days nobody clicked a result
-- ÷ every search of the term. (An unanswered topic's rate needs its questions' words: the
-- session's bank of unanswered ones and answered-questions-by-day.sql, counted by gaps/day-rates.ts.)
-- A day without a row: neither.
-- DuckDB only (GROUP BY ALL, strftime, a temporary table).
WITH thumbs AS (
  SELECT project_id, path AS key, date AS day, count(*) FILTER (WHERE helpful = false) AS signal
  FROM {{feedback}} WHERE path IN (SELECT key FROM rate_gaps WHERE kind = 'thumbs_down_page')
  GROUP BY ALL
), views AS (
  SELECT project_id, path AS key, date AS day, sum(human) AS exposure
  FROM {{views_pages}} WHERE path IN (SELECT key FROM rate_gaps WHERE kind = 'thumbs_down_page')
  GROUP BY ALL
), rates AS (
  SELECT 'thumbs_down_page' AS kind, coalesce(t.project_id, v.project_id) AS project_id, coalesce(t.key, v.key) AS key,
    coalesce(t.day, v.day) AS day, coalesce(t.signal, 0) AS signal, coalesce(v.exposure, 0) AS exposure
  FROM thumbs t FULL OUTER JOIN views v ON t.project_id = v.project_id AND t.key = v.key AND t.day = v.day
  UNION ALL
  SELECT 'search_without_clicks', project_id, lower(search_query), date,
    coalesce(sum(hits) FILTER (WHERE top_clicked_page IS NULL), 0), sum(hits)
  FROM {{searches}} WHERE lower(search_query) IN (SELECT key FROM rate_gaps WHERE kind = 'search_without_clicks')
  GROUP BY ALL
)
SELECT w.gap_id, strftime(r.day, '%Y-%m-%d') AS day, r.signal, r.exposure
FROM rates r
JOIN rate_gaps w ON w.kind = r.kind AND w.project_id = r.project_id AND w.key = r.key
