-- Pages with thumbs down: contextual feedback items with helpful = false, counted from every
-- item (the by-page table keeps at most 100 pages a day), with thumbs up beside them, the share
-- of thumbs down among the page's votes and its three latest comments with a thumbs down.
WITH votes AS (
  SELECT project_id, path,
         count(*) FILTER (WHERE helpful = false) AS thumbs_down,
         count(*) FILTER (WHERE helpful = true) AS thumbs_up,
         {{slice}}(array_agg(comment ORDER BY created_at DESC, comment) FILTER (WHERE comment IS NOT NULL AND helpful = false), 1, 3) AS example_comments
  FROM {{feedback}}
  WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
  GROUP BY project_id, path
)
SELECT v.project_id, v.path, v.thumbs_down, v.thumbs_up,
       round(100.0 * v.thumbs_down / nullif(v.thumbs_down + v.thumbs_up, 0), 1) AS thumbs_down_pct,
       v.example_comments
FROM votes v
WHERE v.thumbs_down > 0
ORDER BY v.thumbs_down DESC, v.project_id, v.path
LIMIT {{limit:50}};
