-- Gaps of kind unanswered_category: assistant questions left unanswered, per project and
-- category (none: ''), with the questions asked in the category and up to three unanswered
-- questions, the latest first. Over the views the gaps session makes of the period's files.
WITH asked AS (
  SELECT project_id, coalesce(query_category, '') AS category, date, query, asked_at,
         resolution_status = 'unanswered' AS unanswered
  FROM assistant_conversations
),
latest AS (
  SELECT project_id, category, query, max(asked_at) AS last
  FROM asked WHERE unanswered
  GROUP BY ALL
)
SELECT a.project_id, a.category,
       count(*) FILTER (WHERE a.unanswered) AS unanswered,
       count(*) AS questions,
       count(DISTINCT a.date) FILTER (WHERE a.unanswered) AS days,
       (SELECT list(l.query ORDER BY l.last DESC, l.query)[1:3] FROM latest l
         WHERE l.project_id = a.project_id AND l.category = a.category) AS examples
FROM asked a
GROUP BY a.project_id, a.category
HAVING count(*) FILTER (WHERE a.unanswered) > 0
