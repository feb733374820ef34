/**
 * Query validation shared by every analytics endpoint: the documented 400 shape
 * `{error, details: [{message}]}`, `limit`/`offset` integers, and the date window
 * (`dateFrom` inclusive, `dateTo` exclusive, `YYYY-MM-DD` or ISO 8601).
 */
import * as v from 'valibot';
import { formatDay } from '../../functions/shared/dates.js';
import { DAY_MS } from '../../functions/shared/time.js';

/** Guards the sandbox against absurd ranges (each row costs O(days)). */
export const MAX_RANGE_DAYS = 3_660;
/** Range used when `dateFrom` is absent, ending at `dateTo`. */
export const DEFAULT_RANGE_DAYS = 30;

/** A validated request, or what the 400 answer says. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly messages: readonly string[] };

/** A 400 for bad query parameters. */
export function invalidQuery(messages: readonly string[]): Parsed<never> {
  return { ok: false, error: 'Invalid query parameters', messages };
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

/** A decimal integer parameter in `[min, max]`. */
export function integerParam(name: string, min: number, max?: number) {
  const range = max === undefined ? `${min} or greater` : `from ${min} to ${max}`;
  const message = `${name} must be an integer ${range}`;
  return v.pipe(v.string(), v.regex(/^\d{1,15}$/, message), v.transform(Number), v.minValue(min, message), v.maxValue(max ?? Number.MAX_SAFE_INTEGER, message));
}

/** `limit`: an integer in `[1, max]`, `fallback` when absent. */
export function limitParam(max: number, fallback: number) {
  return v.optional(integerParam('limit', 1, max), String(fallback));
}

function dateParam(name: string) {
  return v.pipe(v.string(), v.transform(parseInstant), v.number(`${name} must be a real date in ISO 8601 or YYYY-MM-DD format, e.g. 2026-01-31`));
}

/** `dateFrom` and `dateTo`, as epoch ms; resolve them with `windowDays`. */
const DATE_FIELDS = {
  dateFrom: v.optional(dateParam('dateFrom')),
  dateTo: v.optional(dateParam('dateTo')),
};

/** A comma-separated list of values from `allowed` (at least one; duplicates allowed). */
export function listParam<const T extends string>(name: string, allowed: readonly T[]) {
  const message = `${name} must be a comma-separated list of ${allowed.join(', ')}`;
  return v.pipe(
    v.string(),
    v.transform((value) => value.split(',').map((item) => item.trim())),
    v.check((items) => items.every((item) => (allowed as readonly string[]).includes(item)), message),
    v.transform((items) => new Set(items as T[]) as ReadonlySet<T>),
  );
}

/** Validates `params` against an object schema, with every message for the 400 body. */
export function parseParams<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  params: URLSearchParams,
): Parsed<v.InferOutput<v.ObjectSchema<TEntries, undefined>>> {
  const result = v.safeParse(v.object(entries), Object.fromEntries(params), { abortPipeEarly: true });
  if (!result.success) return invalidQuery(result.issues.map((issue) => issue.message));
  return { ok: true, value: result.output };
}

/**
 * The UTC days of `[dateFrom, dateTo)`, oldest first. Missing `dateTo` means "through
 * today" (UTC, by `now`); missing `dateFrom` means `DEFAULT_RANGE_DAYS` before `dateTo`. A
 * date-time `dateFrom` starts on its UTC day, a date-time `dateTo` ends after the UTC day it
 * falls in (unless midnight).
 */
export function windowDays(dateFrom: number | undefined, dateTo: number | undefined, now: number): Parsed<readonly string[]> {
  const toMs = dateTo ?? Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  const fromMs = dateFrom ?? Math.floor(toMs / DAY_MS) * DAY_MS - DEFAULT_RANGE_DAYS * DAY_MS;
  if (fromMs >= toMs) return invalidQuery(['dateFrom must be before dateTo (dateTo is exclusive)']);
  const firstDay = Math.floor(fromMs / DAY_MS) * DAY_MS;
  const endDay = Math.ceil(toMs / DAY_MS) * DAY_MS;
  if ((endDay - firstDay) / DAY_MS > MAX_RANGE_DAYS) {
    return invalidQuery([`the date range may span at most ${MAX_RANGE_DAYS} days`]);
  }
  const days: string[] = [];
  for (let t = firstDay; t < endDay; t += DAY_MS) days.push(formatDay(t));
  return { ok: true, value: days };
}

/** A validated query of an analytics endpoint: its parameters and the UTC days of its window. */
export interface WindowQuery<T> {
  readonly query: T;
  /** The UTC days of `[dateFrom, dateTo)`, oldest first. */
  readonly days: readonly string[];
}

/**
 * Validates `params` against `entries` plus `dateFrom` and `dateTo` (checked last, so the
 * 400 lists the endpoint's own parameters first), then resolves the window (`windowDays`).
 */
export function parseWindowQuery<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  params: URLSearchParams,
  now: number,
): Parsed<WindowQuery<v.InferOutput<v.ObjectSchema<TEntries, undefined>>>> {
  const parsed = parseParams({ ...entries, ...DATE_FIELDS }, params);
  if (!parsed.ok) return parsed;
  const { dateFrom, dateTo, ...query } = parsed.value;
  const days = windowDays(dateFrom, dateTo, now);
  if (!days.ok) return days;
  return { ok: true, value: { query: query as v.InferOutput<v.ObjectSchema<TEntries, undefined>>, days: days.value } };
}
