/**
 * `GET /v1/analytics/{projectId}/views`: content-view events per page path, with the shape
 * and offset paging of visitors (offset.ts): `{totals, views, hasMore}`, limit 1–250 default
 * 50, `offset`; site-wide `totals` whatever the offset. ⚠ Row order undocumented: busiest first.
 */
import type { PageVisitors, VisitorCounts } from '../../functions/shared/api-types.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { createOffsetEndpoint, type PageCountRows } from './offset.js';

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

export function createViewsEndpoint(data: PageCountRows): AnalyticsEndpoint {
  return createOffsetEndpoint('views', data);
}
