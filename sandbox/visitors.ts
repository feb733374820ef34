/**
 * `GET /v1/analytics/{projectId}/visitors`: query validation with the documented 400 shape
 * and page assembly from the lazily generated data.
 */
import * as v from 'valibot';
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';
import { formatDay } from '../functions/shared/dates.js';
import type { VisitorData } from './data.js';

const DAY_MS = 86_400_000;
/** Guards the sandbox against absurd ranges (each row costs O(days)). */
export const MAX_RANGE_DAYS = 3_660;
/** Range used when `dateFrom` is absent, ending at `dateTo`. */
export const DEFAULT_RANGE_DAYS = 30;

/** A validated visitors request. */
export interface VisitorsRequest {
  /** The UTC days of `[dateFrom, dateTo)`, oldest first. */
  readonly days: readonly string[];
  readonly limit: number;
  readonly offset: number;
}

/** The response body of one page. */
export interface VisitorsPageBody {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** ISO 8601 date or date-time (UTC when no offset) → epoch ms; undefined when not a real date. */
export function parseInstant(value: string): number | undefined {
  const match = DATE_ONLY.exec(value) ?? DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  const dayMs = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  // Date.UTC rolls 2026-02-30 over to March: a real date formats back to itself.
  if (formatDay(dayMs) !== `${y}-${mo}-${d}`) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const dateOnly = !value.includes('T');
  const iso = dateOnly ? `${value}T00:00:00Z` : match[7] ? value : `${value}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

function integerParam(name: string, min: number, max?: number) {
  const range = max === undefined ? `${min} or greater` : `from ${min} to ${max}`;
  const message = `${name} must be an integer ${range}`;
  return v.pipe(
    v.string(),
    v.regex(/^\d{1,15}$/, message),
    v.transform(Number),
    v.minValue(min, message),
    v.maxValue(max ?? Number.MAX_SAFE_INTEGER, message),
  );
}

function dateParam(name: string) {
  return v.pipe(
    v.string(),
    v.transform(parseInstant),
    v.number(`${name} must be a real date in ISO 8601 or YYYY-MM-DD format, e.g. 2026-01-31`),
  );
}

const QuerySchema = v.object({
  limit: v.optional(integerParam('limit', 1, 250), '50'),
  offset: v.optional(integerParam('offset', 0), '0'),
  dateFrom: v.optional(dateParam('dateFrom')),
  dateTo: v.optional(dateParam('dateTo')),
});

/**
 * Validates the query. Missing `dateTo` means "through today" (UTC, by `now`); missing
 * `dateFrom` means `DEFAULT_RANGE_DAYS` before `dateTo`. A date-time `dateFrom` starts on
 * its UTC day, a date-time `dateTo` ends after the UTC day it falls in (unless midnight).
 */
export function parseVisitorsQuery(
  params: URLSearchParams,
  now: number,
): { ok: true; value: VisitorsRequest } | { ok: false; messages: string[] } {
  const result = v.safeParse(QuerySchema, Object.fromEntries(params), { abortPipeEarly: true });
  if (!result.success) return { ok: false, messages: result.issues.map((issue) => issue.message) };
  const { limit, offset, dateFrom, dateTo } = result.output;
  const toMs = dateTo ?? Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  const fromMs = dateFrom ?? Math.floor(toMs / DAY_MS) * DAY_MS - DEFAULT_RANGE_DAYS * DAY_MS;
  if (fromMs >= toMs) return { ok: false, messages: ['dateFrom must be before dateTo (dateTo is exclusive)'] };
  const firstDay = Math.floor(fromMs / DAY_MS) * DAY_MS;
  const endDay = Math.ceil(toMs / DAY_MS) * DAY_MS;
  if ((endDay - firstDay) / DAY_MS > MAX_RANGE_DAYS) {
    return { ok: false, messages: [`the date range may span at most ${MAX_RANGE_DAYS} days`] };
  }
  const days: string[] = [];
  for (let t = firstDay; t < endDay; t += DAY_MS) days.push(formatDay(t));
  return { ok: true, value: { days, limit, offset } };
}

/** Rows `[offset, offset + limit)` of the range, with the range's totals. */
export function buildPage(data: VisitorData, projectId: string, request: VisitorsRequest): VisitorsPageBody {
  const rowCount = data.rowCount(projectId, request.days);
  const end = Math.min(rowCount, request.offset + request.limit);
  const visitors: PageVisitors[] = [];
  for (let i = request.offset; i < end; i++) visitors.push(data.row(projectId, request.days, i));
  return {
    totals: data.totals(projectId, request.days),
    visitors,
    hasMore: request.offset + request.limit < rowCount,
  };
}
