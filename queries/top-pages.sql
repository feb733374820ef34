-- The most viewed pages: page views (views_pages.total, the API's own total of the page's
-- views; human and ai are its two kinds) summed over the days.
SELECT project_id, path, sum(total) AS views, sum(human) AS human, sum(ai) AS ai
FROM {{views_pages}}
WHERE dt >= {{from:30}} AND dt < {{to}} AND {{projects}}
GROUP BY project_id, path
ORDER BY views DESC, project_id, path
LIMIT {{limit:50}};
