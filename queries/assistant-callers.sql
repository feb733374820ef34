SELECT project_id, sum(web) AS web, sum(api) AS api, sum(other) AS other, sum(total) AS total
FROM {{assistant_caller_stats}}
WHERE dt >= {{days_ago:30}}
GROUP BY project_id
ORDER BY project_id;
