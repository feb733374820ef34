/**
 * `GET /v1/analytics/{projectId}/feedback`: `{feedback, nextCursor, hasMore}`, `limit` 1–100
 * (default 50), opaque `cursor`, optional `source` and `status` filters (comma-separated,
 * validated against the enums; a cursor is only valid with the filters it was issued for).
 */
import * as v from 'valibot';
import { FEEDBACK_SOURCES, FEEDBACK_STATUSES } from '../../functions/shared/api-enums.js';
import { FeedbackData, type FeedbackFilter, type FeedbackRow } from '../generators/feedback.js';
import { cursorFields, opaqueCursor, prepareCursorRequest } from './cursor.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';
import { listParam } from './query.js';

/** The response body of one feedback page. */
export interface FeedbackPageBody {
  feedback: FeedbackRow[];
  nextCursor: string | null;
  hasMore: boolean;
}

const FIELDS = {
  ...cursorFields(100, 50),
  source: v.optional(listParam('source', FEEDBACK_SOURCES)),
  status: v.optional(listParam('status', FEEDBACK_STATUSES)),
};

export function createFeedbackEndpoint(data: FeedbackData, seed: number): AnalyticsEndpoint {
  return windowedEndpoint(FIELDS, (projectId, { query: { limit, cursor, source, status }, days }) => {
    const filter: FeedbackFilter = { ...(source ? { sources: source } : {}), ...(status ? { statuses: status } : {}) };
    const filtered = source !== undefined || status !== undefined;
    return prepareCursorRequest<FeedbackRow>({
      codec: opaqueCursor,
      scope: {
        seed,
        dataset: 'feedback',
        projectId,
        days,
        filter: `source=${[...(source ?? [])].sort().join(',')};status=${[...(status ?? [])].sort().join(',')}`,
      },
      cursor,
      limit,
      source: {
        count: data.rowCount(projectId, days),
        row: (index) => data.row(projectId, days, index),
        ...(filtered ? { matches: (row: FeedbackRow) => FeedbackData.matches(row, filter) } : {}),
      },
      render: (rows, nextCursor, hasMore): FeedbackPageBody => ({ feedback: [...rows], nextCursor, hasMore }),
      breakTypes: (body) => {
        const page = body as FeedbackPageBody;
        const rows: Record<string, unknown>[] = page.feedback.map((row) => ({ ...row }));
        if (rows[0]) {
          rows[0].createdAt = Date.parse(String(rows[0].createdAt));
          rows[0].source = 42;
        }
        const last = rows.at(-1);
        if (last) {
          last.status = null;
          last.helpful = 'yes';
        }
        return { ...page, feedback: rows, hasMore: String(page.hasMore) };
      },
    });
  });
}
