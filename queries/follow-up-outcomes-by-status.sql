SELECT status, count(*) AS requests, count(pr_link) AS with_pr,
       min(finished_at) AS first_finished, max(finished_at) AS last_finished
FROM {{followup_outcomes}}
WHERE dt >= {{days_ago:30}}
GROUP BY status
ORDER BY requests DESC;
