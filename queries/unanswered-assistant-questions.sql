-- Unanswered questions: assistant turns with resolution_status = 'unanswered', by project and
-- category ('' when the service gave none), with the three most asked questions of each: the
-- same question is the same normalized text (lower case, runs of spaces as one, no space or
-- ?!. at either end), shown as last asked, with how often it was asked (example_counts).
WITH unanswered AS (
  SELECT project_id, coalesce(query_category, '') AS query_category, query, asked_at, conversation_id
  FROM {{assistant_conversations}}
  WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
    AND resolution_status = 'unanswered'
),
normalized AS (
  SELECT project_id, query_category, query, asked_at,
         regexp_replace(regexp_replace(lower(query), '\s+', ' '{{every}}), '^[\s?!.]+|[\s?!.]+$', ''{{every}}) AS question
  FROM unanswered
),
asked AS (
  SELECT project_id, query_category, question, count(*) AS times, max_by(query, asked_at) AS last_text, max(asked_at) AS last_asked,
         row_number() OVER (PARTITION BY project_id, query_category ORDER BY count(*) DESC, max(asked_at) DESC, question) AS n
  FROM normalized
  GROUP BY project_id, query_category, question
),
examples AS (
  SELECT project_id, query_category, array_agg(last_text ORDER BY n) AS example_queries, array_agg(times ORDER BY n) AS example_counts
  FROM asked
  WHERE n <= 3
  GROUP BY project_id, query_category
)
SELECT u.project_id, u.query_category, count(*) AS unanswered,
       count(DISTINCT u.conversation_id) AS conversations,
       arbitrary(e.example_queries) AS example_queries,
       arbitrary(e.example_counts) AS example_counts
FROM unanswered u
LEFT JOIN examples e ON e.project_id = u.project_id AND e.query_category = u.query_category
GROUP BY u.project_id, u.query_category
ORDER BY unanswered DESC, u.query_category, u.project_id
LIMIT {{limit:100}};
