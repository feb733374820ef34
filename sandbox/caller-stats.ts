/**
 * `GET /v1/analytics/{projectId}/assistant/caller-stats`: `{web, api, other, total}` for the
 * window, one request, no paging; `total` = web + api + other = the window's assistant turns.
 */
import type { AssistantData } from './data-assistant.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { DATE_FIELDS, parseParams, windowDays } from './query.js';

export function createCallerStatsEndpoint(data: AssistantData): AnalyticsEndpoint {
  return {
    route: 'caller-stats',
    prepare(projectId, params, now) {
      const parsed = parseParams(DATE_FIELDS, params);
      if (!parsed.ok) return parsed;
      const window = windowDays(parsed.value.dateFrom, parsed.value.dateTo, now);
      if (!window.ok) return window;
      const days = window.value;
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
