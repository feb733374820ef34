/**
 * Offset paging, shared by `/visitors` and `/views`: `{totals, <rows key>: rows, hasMore}`,
 * `limit` 1–250 (default 50), `offset` ≥ 0 (default 0), `totals` site-wide whatever the
 * offset; page assembly from the lazily generated data, and the offset-specific fault kinds.
 */
import * as v from 'valibot';
import type { PageVisitors, VisitorCounts } from '../../functions/shared/api-types.js';
import type { WindowedRows } from '../generators/windowed.js';
import type { FaultRule } from '../server/faults.js';
import type { Answer } from '../server/http.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';
import { integerParam, limitParam, type WindowQuery } from './query.js';

/** Page counts of a window with its site totals (the visitors and views data). */
export interface PageCountRows extends WindowedRows<PageVisitors> {
  totals(projectId: string, days: readonly string[]): VisitorCounts;
}

type OffsetRequest = WindowQuery<{ readonly limit: number; readonly offset: number }>;

const OFFSET_FIELDS = {
  limit: limitParam(250, 50),
  offset: v.optional(integerParam('offset', 0), '0'),
};

type OffsetBody = { totals: VisitorCounts; hasMore: boolean } & Record<string, PageVisitors[]>;

/** Rows `[offset, offset + limit)` of the window, with the window's totals, under `key`. */
function buildOffsetPage(data: PageCountRows, key: string, projectId: string, { query, days }: OffsetRequest): OffsetBody {
  const rowCount = data.rowCount(projectId, days);
  const end = Math.min(rowCount, query.offset + query.limit);
  const rows: PageVisitors[] = [];
  for (let i = query.offset; i < end; i++) rows.push(data.row(projectId, days, i));
  return {
    totals: data.totals(projectId, days),
    [key]: rows,
    hasMore: query.offset + query.limit < rowCount,
  } as OffsetBody;
}

/** An offset-paged endpoint whose body lists its rows under `key` (`visitors` or `views`). */
export function createOffsetEndpoint(key: string, data: PageCountRows): AnalyticsEndpoint {
  return windowedEndpoint(OFFSET_FIELDS, (projectId, request) => ({
    ok: true,
    value: {
      offset: request.query.offset,
      page: () => buildOffsetPage(data, key, projectId, request),
      fault: (rule, body) => offsetFault(rule, body as OffsetBody, data, key, projectId, request),
    },
  }));
}

function offsetFault(
  rule: FaultRule,
  body: OffsetBody,
  data: PageCountRows,
  key: string,
  projectId: string,
  { query, days }: OffsetRequest,
): Answer | undefined {
  const rows = body[key] as PageVisitors[];
  switch (rule.kind) {
    case 'wrong-types': {
      const broken: Record<string, unknown> = { ...body, totals: { ...body.totals, human: String(body.totals.human) } };
      const brokenRows: Record<string, unknown>[] = rows.map((row) => ({ ...row }));
      if (brokenRows[0]) brokenRows[0].human = String(brokenRows[0].human);
      const last = brokenRows.at(-1);
      if (last) last.ai = -1 - Number(last.ai);
      broken[key] = brokenRows;
      return { status: 200, body: broken };
    }
    case 'empty-page-has-more':
      return { status: 200, body: { totals: body.totals, [key]: [], hasMore: true } };
    case 'totals-change': {
      const { human, ai, total } = body.totals;
      const totals = { human: human + 1 + Math.floor(human / 10), ai: ai + 1, total: total + 1 + Math.floor(total / 10) };
      return { status: 200, body: { ...body, totals } };
    }
    case 'duplicate-paths': {
      const changed = [...rows];
      const first = changed[0];
      if (first) {
        // Row offset-1 was on an earlier page; at offset 0 the page repeats its own first row.
        const earlier = query.offset > 0 ? data.row(projectId, days, query.offset - 1).path : changed[1]?.path;
        if (query.offset > 0) changed[0] = { ...first, path: earlier ?? first.path };
        else if (changed[1]) changed[1] = { ...changed[1], path: first.path };
      }
      return { status: 200, body: { ...body, [key]: changed } };
    }
    default:
      return undefined;
  }
}
