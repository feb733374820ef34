-- Every assistant question that was not left unanswered (answered, or its status not known), per
-- project and question — the same question as unanswered-questions-by-day.sql names it: the same
-- text but for case, runs of spaces and ?!. at either end — with each UTC day it was asked on
-- (days since 1970-01-01) and how often that day (one row a question, its days a list, so that
-- its text is read once however many days it was asked on). An unanswered topic's exposure per
-- day is these and its unanswered questions (gaps/day-rates.ts: the unanswered ones come from the
-- session's bank, gaps/bank.ts, read once — they are not read again here), over the questions
-- the topic's key terms name (functions/gaps/topics.ts). Asked of the table's files (every
-- turn's text), not of the report's loaded table, which keeps the text of unanswered turns only.
-- Only the questions the caller's macro topic_candidate(project_id, lower-cased text) lets through
-- (gaps/day-rates.ts `topicCandidateMacro`: every question a topic's key may hold, and more), so
-- that the words of the rest are never read.
-- DuckDB only (GROUP BY ALL, the macro): queries/questions.ts never saves it in Athena.
SELECT project_id, question, list({'day': day, 'answered': answered}) AS days
FROM (
  SELECT project_id, (CAST(dt AS DATE) - DATE '1970-01-01')::INTEGER AS day,
         regexp_replace(regexp_replace(lower(query), '\s+', ' '{{every}}), '^[\s?!.]+|[\s?!.]+$', ''{{every}}) AS question,
         count(*)::INTEGER AS answered
  FROM {{assistant_conversations}}
  WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}} AND query IS NOT NULL
    AND resolution_status IS DISTINCT FROM 'unanswered' AND topic_candidate(project_id, lower(query))
  GROUP BY ALL
)
GROUP BY ALL
