/**
 * `GET /v1/analytics/{projectId}/views`: content-view events per page path, with the shape
 * and offset paging of visitors (`{totals, views, hasMore}`, limit 1–250 default 50,
 * `offset`). The data is the visitors model with its own per-day counts and more traffic:
 * the same catalogue of paths, `total` deduplicated like visitors' (`max(human, ai) ≤ total ≤
 * human + ai`), site-wide `totals` whatever the offset. ⚠ Row order undocumented: busiest first.
 */
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';
import type { VisitorData } from './data.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { createOffsetEndpoint } from './visitors.js';

/** Views of one page path. */
export type PageViews = PageVisitors;
/** Site-wide views of the window. */
export type ViewCounts = VisitorCounts;

/** The response body of one views page. */
export interface ViewsPageBody {
  totals: ViewCounts;
  views: PageViews[];
  hasMore: boolean;
}

/** Salt and traffic factor of the views data (see `VisitorData`). */
export const VIEWS_DATA_OPTIONS = { salt: 0x71e35, scale: 2.5, dataset: 'views' } as const;

export function createViewsEndpoint(data: VisitorData): AnalyticsEndpoint {
  return createOffsetEndpoint('views', data);
}
