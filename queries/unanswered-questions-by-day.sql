-- Unanswered assistant questions per project, UTC day and question — the same question: the same
-- text but for case, runs of spaces and ?!. at either end — with how often it went unanswered,
-- and its text as last asked: what gaps groups into topics by their words
-- (functions/gaps/topics.ts), and a topic's figure per day.
-- DuckDB only (GROUP BY ALL, max_by): queries/questions.ts never saves it in Athena.
SELECT project_id, dt AS day,
       regexp_replace(regexp_replace(lower(query), '\s+', ' '{{every}}), '^[\s?!.]+|[\s?!.]+$', ''{{every}}) AS question,
       count(*) AS unanswered,
       max_by(query, asked_at) AS last_text
FROM {{assistant_conversations}}
WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  AND resolution_status = 'unanswered' AND query IS NOT NULL
GROUP BY ALL
ORDER BY project_id, day, question
