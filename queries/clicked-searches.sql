-- Searches whose results were clicked: a term (case-insensitively) with a clicked result on some
-- day of the range, its searches and about how many clicks — hits × the click-through rate,
-- which the API sends on a scale of 0–1 or 0–100. The report reads it for the period before its
-- own: an unclicked search now whose clicks then were beyond chance is "no longer clicked".
SELECT project_id, lower(search_query) AS term, sum(hits) AS hits,
       round(sum(CASE WHEN top_clicked_page IS NULL THEN 0 WHEN ctr > 1 THEN hits * ctr / 100 ELSE hits * coalesce(ctr, 0) END)) AS clicks
FROM {{searches}}
WHERE dt >= {{from:14}} AND dt < {{to}} AND {{projects}}
GROUP BY project_id, lower(search_query)
HAVING count(top_clicked_page) > 0
ORDER BY project_id, term
LIMIT {{limit:1000}};
