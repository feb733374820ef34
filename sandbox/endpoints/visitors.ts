/**
 * `GET /v1/analytics/{projectId}/visitors`: unique visitors per page path, offset-paged
 * (offset.ts): `{totals, visitors, hasMore}`, limit 1–250 default 50, `offset`; `totals`
 * site-wide whatever the offset.
 */
import type { PageVisitors, VisitorCounts } from '../../functions/shared/api-types.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { createOffsetEndpoint, type PageCountRows } from './offset.js';

/** The response body of one visitors page. */
export interface VisitorsPageBody {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

export function createVisitorsEndpoint(data: PageCountRows): AnalyticsEndpoint {
  return createOffsetEndpoint('visitors', data);
}
