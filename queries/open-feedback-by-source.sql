SELECT project_id, source, count(*) AS items, count(comment) AS with_comment,
       count(*) FILTER (WHERE helpful = false) AS not_helpful
FROM {{feedback}}
WHERE dt >= {{days_ago:30}}
  AND status IN ('pending', 'in_progress')
GROUP BY project_id, source
ORDER BY project_id, items DESC;
