/**
 * `GET /v1/analytics/{projectId}/assistant`: `{conversations, nextCursor, hasMore}`, one row
 * per user turn, `limit` 1–1000 (default 100), a ULID `cursor`. Several turns share one `id`
 * (multi-turn conversations), so the row key is (`id`, `timestamp`); rows are not in
 * timestamp order.
 */
import type { AssistantData, ConversationTurn } from '../generators/assistant.js';
import { cursorFields, prepareCursorRequest, ulidCursor } from './cursor.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';

/** The response body of one assistant page. */
export interface AssistantPageBody {
  conversations: ConversationTurn[];
  nextCursor: string | null;
  hasMore: boolean;
}

export function createAssistantEndpoint(data: AssistantData, seed: number): AnalyticsEndpoint {
  return windowedEndpoint(cursorFields(1000, 100), (projectId, { query: { limit, cursor }, days }) =>
    prepareCursorRequest<ConversationTurn>({
      codec: ulidCursor,
      scope: { seed, dataset: 'assistant', projectId, days, filter: '' },
      cursor,
      limit,
      source: { count: data.rowCount(projectId, days), row: (index) => data.row(projectId, days, index) },
      render: (rows, nextCursor, hasMore): AssistantPageBody => ({ conversations: [...rows], nextCursor, hasMore }),
      breakTypes: (body) => {
        const page = body as AssistantPageBody;
        const rows: Record<string, unknown>[] = page.conversations.map((row) => ({ ...row }));
        if (rows[0]) {
          rows[0].timestamp = Date.parse(String(rows[0].timestamp));
          rows[0].sources = 'none';
        }
        const last = rows.at(-1);
        if (last) last.responseType = 7;
        return { ...page, conversations: rows };
      },
    }),
  );
}
