-- Every assistant question, answered or not, per project and question — the same question
-- as unanswered-questions-by-day.sql names it: the same text but for case, runs of spaces and ?!.
-- at either end — with each UTC day it was asked on (days since 1970-01-01), how often it was
-- asked and how often it went unanswered that day (one row a question, its days a list, so that
-- its text is read once however many days it was asked on): an unanswered
-- topic's exposure and signal per day (gaps/effect.ts: unanswered ÷ asked over the questions
-- the topic's key terms name, functions/gaps/topics.ts). Asked of the table's files (every turn's
-- text), not of the report's loaded table, which keeps the text of unanswered turns only.
-- Only the questions the caller's macro topic_candidate(project_id, lower-cased text) lets through
-- (gaps/day-rates.ts `topicCandidateMacro`: every question a topic's key may hold, and more), so
-- that the words of the rest are never read.
-- DuckDB only (GROUP BY ALL, the macro): queries/questions.ts never saves it in Athena.
SELECT project_id, question, list({'day': day, 'asked': asked, 'unanswered': unanswered}) AS days
FROM (
  SELECT project_id, (CAST(dt AS DATE) - DATE '1970-01-01')::INTEGER AS day,
         regexp_replace(regexp_replace(lower(query), '\s+', ' '{{every}}), '^[\s?!.]+|[\s?!.]+$', ''{{every}}) AS question,
         count(*)::INTEGER AS asked,
         (count(*) FILTER (WHERE resolution_status = 'unanswered'))::INTEGER AS unanswered
  FROM {{assistant_conversations}}
  WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}} AND query IS NOT NULL AND topic_candidate(project_id, lower(query))
  GROUP BY ALL
)
GROUP BY ALL
