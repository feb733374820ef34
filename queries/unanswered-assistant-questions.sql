SELECT project_id,
       coalesce(query_category, '(no category)') AS query_category,
       count(*) AS unanswered,
       count(DISTINCT conversation_id) AS conversations,
       {{slice}}(array_agg(DISTINCT query), 1, 5) AS example_queries
FROM {{assistant_conversations}}
WHERE dt >= {{days_ago:30}}
  AND resolution_status = 'unanswered'
GROUP BY project_id, coalesce(query_category, '(no category)')
ORDER BY unanswered DESC
LIMIT 100;
