SELECT run_id, "trigger", started_at, finished_at,
       date_diff('second', started_at, finished_at) AS duration_s,
       units_done, units_partial, units_failed, units_skipped,
       requests, retries, rate_limited, budget_wait_ms, backlog_requests,
       failures
FROM {{export_runs}}
WHERE dt >= {{days_ago:30}}
ORDER BY started_at DESC
LIMIT 14;
