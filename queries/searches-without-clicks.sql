-- Searches nobody clicked: a term (case-insensitively: the API merges a day's spellings) whose
-- results were never clicked on any day of the range — no day has a top clicked page — ranked
-- by how often it was searched. Candidates for a page, a synonym or a redirect.
SELECT project_id, min(search_query) AS search_query, sum(hits) AS hits, count(*) AS days,
       max(last_searched_at) AS last_searched_at
FROM {{searches}}
WHERE dt >= {{from:14}} AND dt < {{to}} AND {{projects}}
GROUP BY project_id, lower(search_query)
HAVING count(top_clicked_page) = 0
ORDER BY hits DESC, search_query, project_id
LIMIT {{limit:100}};
