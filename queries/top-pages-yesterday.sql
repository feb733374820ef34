SELECT project_id, path, human, ai, total
FROM {{visitors_pages}}
WHERE dt = {{days_ago:1}}
ORDER BY total DESC
LIMIT 50;
