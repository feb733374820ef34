-- Gaps of kind thumbs_down_page: pages with thumbs down (contextual feedback, helpful = false),
-- counted from every feedback item (feedback_by_page keeps at most 100 pages a day), with the
-- thumbs up and up to three comments of thumbs down, the latest first.
SELECT project_id, path,
       count(*) FILTER (WHERE helpful = false) AS thumbs_down,
       count(*) FILTER (WHERE helpful = true) AS thumbs_up,
       coalesce(list(comment ORDER BY created_at DESC NULLS LAST, comment) FILTER (WHERE helpful = false AND comment IS NOT NULL AND trim(comment) <> ''), [])[1:3] AS comments
FROM feedback
GROUP BY project_id, path
HAVING count(*) FILTER (WHERE helpful = false) > 0
