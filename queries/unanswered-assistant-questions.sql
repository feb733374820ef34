-- Unanswered questions: assistant turns with resolution_status = 'unanswered', by project and
-- category ('' when the service gave none), with the three latest distinct questions of each.
WITH unanswered AS (
  SELECT project_id, coalesce(query_category, '') AS query_category, query, asked_at, conversation_id
  FROM {{assistant_conversations}}
  WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
    AND resolution_status = 'unanswered'
),
latest AS (
  SELECT project_id, query_category, query, max(asked_at) AS last_asked,
         row_number() OVER (PARTITION BY project_id, query_category ORDER BY max(asked_at) DESC, query) AS n
  FROM unanswered
  GROUP BY project_id, query_category, query
),
examples AS (
  SELECT project_id, query_category, array_agg(query ORDER BY n) AS example_queries
  FROM latest
  WHERE n <= 3
  GROUP BY project_id, query_category
)
SELECT u.project_id, u.query_category, count(*) AS unanswered,
       count(DISTINCT u.conversation_id) AS conversations,
       arbitrary(e.example_queries) AS example_queries
FROM unanswered u
LEFT JOIN examples e ON e.project_id = u.project_id AND e.query_category = u.query_category
GROUP BY u.project_id, u.query_category
ORDER BY unanswered DESC, u.query_category, u.project_id
LIMIT {{limit:100}};
