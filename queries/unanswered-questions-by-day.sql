-- Unanswered assistant questions as asked, one row per time one went unanswered: its project,
-- UTC day, text and when it was asked (epoch ms). functions/gaps/bank.ts folds them into
-- questions (the same text but for case, width, runs of spaces and ?!. at either end), counts
-- each question per day with its text as last asked, and groups them into topics by their words
-- (functions/gaps/topics.ts). Neither grouped nor ordered here: DuckDB streams the rows and
-- holds none (a day of 200,000 distinct questions grouped and ordered here held about 100 MB).
-- DuckDB only (epoch_ms): queries/questions.ts never saves it in Athena.
SELECT project_id, dt AS day, query AS text, epoch_ms(asked_at) AS asked_at
FROM {{assistant_conversations}}
WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  AND resolution_status = 'unanswered' AND query IS NOT NULL
