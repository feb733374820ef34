/**
 * `GET /v1/analytics/{projectId}/feedback/by-page`: `{feedback: [{path, thumbsUp, thumbsDown,
 * code, total}], hasMore}` over the window, aggregated from the same rows `/feedback` serves
 * (generators/feedback-by-page.ts). `limit` 1–100, default **10**; no cursor, no offset (⚠
 * `cursor` and `offset` are ignored like any unknown parameter): `hasMore: true` means pages
 * were left out and cannot be read.
 */
import { MAX_AGGREGATED_FEEDBACK, type FeedbackByPageBody, type FeedbackByPageData } from '../generators/feedback-by-page.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';
import { invalidQuery, limitParam } from './query.js';

export function createFeedbackByPageEndpoint(data: FeedbackByPageData): AnalyticsEndpoint {
  return windowedEndpoint({ limit: limitParam(100, 10) }, (projectId, { query, days }) => {
    if (data.tooLarge(projectId, days)) {
      return invalidQuery([`the sandbox aggregates at most ${MAX_AGGREGATED_FEEDBACK} feedback rows per window: ask for one day at a time`]);
    }
    return {
      ok: true,
      value: {
        page: () => data.serve(projectId, days, query.limit),
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
  });
}
