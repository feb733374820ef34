/**
 * `GET /v1/analytics/{projectId}/feedback/by-page`: `{feedback: [{path, thumbsUp, thumbsDown,
 * code, total}], hasMore}` over the window, aggregated from the same rows `/feedback` serves.
 * `limit` 1–100, default **10**; no cursor, no offset (⚠ `cursor` and `offset` are ignored
 * like any unknown parameter): `hasMore: true` means pages were left out and cannot be read.
 */
import type { FeedbackByPageRow, FeedbackData } from './data-feedback.js';
import { MAX_AGGREGATED_FEEDBACK } from './data-feedback.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { DATE_FIELDS, invalidQuery, limitParam, parseParams, windowDays } from './query.js';

/** The response body of `/feedback/by-page`. */
export interface FeedbackByPageBody {
  feedback: FeedbackByPageRow[];
  hasMore: boolean;
}

const FIELDS = { limit: limitParam(100, 10), ...DATE_FIELDS };

/** What the endpoint answers for a window: the first `limit` pages and whether any were left out. */
export function buildFeedbackByPage(data: FeedbackData, projectId: string, days: readonly string[], limit: number): FeedbackByPageBody {
  const pages = data.byPage(projectId, days);
  return { feedback: pages.slice(0, limit), hasMore: pages.length > limit };
}

export function createFeedbackByPageEndpoint(data: FeedbackData): AnalyticsEndpoint {
  return {
    route: 'feedback-by-page',
    prepare(projectId, params, now) {
      const parsed = parseParams(FIELDS, params);
      if (!parsed.ok) return parsed;
      const { limit, dateFrom, dateTo } = parsed.value;
      const window = windowDays(dateFrom, dateTo, now);
      if (!window.ok) return window;
      const days = window.value;
      if (data.rowCount(projectId, days) > MAX_AGGREGATED_FEEDBACK) {
        return invalidQuery([`the sandbox aggregates at most ${MAX_AGGREGATED_FEEDBACK} feedback rows per window: ask for one day at a time`]);
      }
      return {
        ok: true,
        value: {
          page: () => buildFeedbackByPage(data, projectId, days, limit),
          fault(rule, body) {
            if (rule.kind !== 'wrong-types') return undefined;
            const page = body as FeedbackByPageBody;
            const rows: Record<string, unknown>[] = page.feedback.map((row) => ({ ...row }));
            if (rows[0]) rows[0].thumbsUp = String(rows[0].thumbsUp);
            const last = rows.at(-1);
            if (last) last.total = -1 - Number(last.total);
            return { status: 200, body: { ...page, feedback: rows } };
          },
        },
      };
    },
  };
}
