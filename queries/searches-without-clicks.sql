SELECT project_id, search_query,
       sum(hits) AS hits_without_clicks,
       count(*) AS days,
       max(last_searched_at) AS last_searched_at
FROM {{searches}}
WHERE dt >= {{days_ago:14}}
  AND (ctr = 0 OR top_clicked_page IS NULL)
GROUP BY project_id, search_query
HAVING sum(hits) >= 10
ORDER BY hits_without_clicks DESC
LIMIT 100;
