/**
 * `GET /v1/analytics/{projectId}/assistant/caller-stats`: `{web, api, other, total}` for the
 * window, one request, no paging; `total` = web + api + other = the window's assistant turns.
 */
import type { CallerStatsData } from '../generators/caller-stats.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { parseWindowQuery } from './query.js';

export function createCallerStatsEndpoint(data: CallerStatsData): AnalyticsEndpoint {
  return {
    prepare(projectId, params, now) {
      const parsed = parseWindowQuery({}, params, now);
      if (!parsed.ok) return parsed;
      const { days } = parsed.value;
      return {
        ok: true,
        value: {
          page: () => data.callerStats(projectId, days),
          fault(rule, body) {
            if (rule.kind !== 'wrong-types') return undefined;
            const stats = body as { web: number; total: number };
            return { status: 200, body: { ...stats, web: String(stats.web), total: -1 - stats.total } };
          },
        },
      };
    },
  };
}
