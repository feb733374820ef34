/**
 * `GET /v1/analytics/{projectId}/visitors` — and the offset paging it shares with `/views`:
 * query validation with the documented 400 shape, page assembly from the lazily generated
 * data, and the offset-specific fault kinds.
 */
import * as v from 'valibot';
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';
import type { VisitorData } from './data.js';
import type { AnalyticsEndpoint, Answer, PreparedRequest } from './endpoint.js';
import type { FaultRule } from './faults.js';
import { DATE_FIELDS, integerParam, limitParam, parseParams, windowDays, type Parsed } from './query.js';

export { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './query.js';

/** A validated offset request. */
export interface OffsetRequest {
  /** The UTC days of `[dateFrom, dateTo)`, oldest first. */
  readonly days: readonly string[];
  readonly limit: number;
  readonly offset: number;
}

/** The response body of one visitors page. */
export interface VisitorsPageBody {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

const OFFSET_FIELDS = {
  limit: limitParam(250, 50),
  offset: v.optional(integerParam('offset', 0), '0'),
  ...DATE_FIELDS,
};

/** Validates `limit` (1–250, default 50), `offset` (≥ 0, default 0) and the date window. */
export function parseOffsetQuery(params: URLSearchParams, now: number): Parsed<OffsetRequest> {
  const parsed = parseParams(OFFSET_FIELDS, params);
  if (!parsed.ok) return parsed;
  const { limit, offset, dateFrom, dateTo } = parsed.value;
  const days = windowDays(dateFrom, dateTo, now);
  if (!days.ok) return days;
  return { ok: true, value: { days: days.value, limit, offset } };
}

/** Rows `[offset, offset + limit)` of the window, with the window's totals, under `key`. */
export function buildOffsetPage<K extends string>(
  data: VisitorData,
  key: K,
  projectId: string,
  request: OffsetRequest,
): { totals: VisitorCounts } & Record<K, PageVisitors[]> & { hasMore: boolean } {
  const rowCount = data.rowCount(projectId, request.days);
  const end = Math.min(rowCount, request.offset + request.limit);
  const rows: PageVisitors[] = [];
  for (let i = request.offset; i < end; i++) rows.push(data.row(projectId, request.days, i));
  return {
    totals: data.totals(projectId, request.days),
    [key]: rows,
    hasMore: request.offset + request.limit < rowCount,
  } as { totals: VisitorCounts } & Record<K, PageVisitors[]> & { hasMore: boolean };
}

/**
 * An offset-paged endpoint (`visitors` or `views`): `{totals, <route>: rows, hasMore}`,
 * `totals` site-wide whatever the offset.
 */
export function createOffsetEndpoint(route: 'visitors' | 'views', data: VisitorData): AnalyticsEndpoint {
  return {
    route,
    prepare(projectId, params, now) {
      const parsed = parseOffsetQuery(params, now);
      if (!parsed.ok) return parsed;
      const request = parsed.value;
      const prepared: PreparedRequest = {
        offset: request.offset,
        page: () => buildOffsetPage(data, route, projectId, request),
        fault: (rule, body) => offsetFault(rule, body as OffsetBody, data, route, projectId, request),
      };
      return { ok: true, value: prepared };
    },
  };
}

type OffsetBody = { totals: VisitorCounts; hasMore: boolean } & Record<string, PageVisitors[]>;

function offsetFault(rule: FaultRule, body: OffsetBody, data: VisitorData, key: string, projectId: string, request: OffsetRequest): Answer | undefined {
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
        const earlier = request.offset > 0 ? data.row(projectId, request.days, request.offset - 1).path : changed[1]?.path;
        if (request.offset > 0) changed[0] = { ...first, path: earlier ?? first.path };
        else if (changed[1]) changed[1] = { ...changed[1], path: first.path };
      }
      return { status: 200, body: { ...body, [key]: changed } };
    }
    default:
      return undefined;
  }
}
