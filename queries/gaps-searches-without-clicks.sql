-- Gaps of kind search_without_clicks: search terms (case-insensitively: the API merges a day's
-- spellings) searched in the period with no click on any day — the report's "searches nobody
-- clicked". A term's rows are its days.
SELECT project_id, lower(search_query) AS term, min(search_query) AS query,
       sum(hits) AS searches, sum(days) AS days
FROM (
  SELECT project_id, search_query, sum(hits) AS hits, count(top_clicked_page) AS clicks, count(*) AS days
  FROM searches
  GROUP BY ALL
)
GROUP BY project_id, lower(search_query)
HAVING sum(clicks) = 0
