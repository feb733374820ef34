/**
 * `GET /v1/analytics/{projectId}/assistant/caller-stats`: `{web, api, other, total}` for the
 * window, one request, no paging; `total` = web + api + other = the window's assistant turns.
 */
import type { CallerStatsData } from '../generators/caller-stats.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';

export function createCallerStatsEndpoint(data: CallerStatsData): AnalyticsEndpoint {
  return windowedEndpoint({}, (projectId, { days }) => ({
    ok: true,
    value: {
      page: () => data.callerStats(projectId, days),
      fault(rule, body) {
        if (rule.kind !== 'wrong-types') return undefined;
        const stats = body as { web: number; total: number };
        return { status: 200, body: { ...stats, web: String(stats.web), total: -1 - stats.total } };
      },
    },
  }));
}
