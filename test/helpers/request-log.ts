/**
 * Role: what the sandbox saw. Filters and summaries over its request log (`sandbox.requests`):
 * the requests of a unit or a route, the pages served and served twice, 429s, the most
 * requests that started in any window — and the fewest requests paging allows, to hold the
 * log against.
 */
import { CATALOG, type DatasetName, type PagingKind } from '../../functions/warehouse/catalog.js';
import type { AnalyticsRoute, RequestLogEntry, Sandbox } from '../../sandbox/index.js';

/** The sandbox's route (request log, fault rules) of each dataset, from the catalog. */
export const ROUTE_OF: Readonly<Record<DatasetName, AnalyticsRoute>> = Object.fromEntries(CATALOG.map((entry) => [entry.name, entry.route])) as Record<
  DatasetName,
  AnalyticsRoute
>;

/** Each endpoint's largest `limit` (docs/design.md §1.1), from the catalog; caller stats takes none. */
export const MAX_LIMIT: Readonly<Record<DatasetName, number | undefined>> = Object.fromEntries(CATALOG.map((entry) => [entry.name, entry.maxLimit])) as Record<
  DatasetName,
  number | undefined
>;

/** Each dataset's paging, from the catalog. */
export const PAGING_OF: Readonly<Record<DatasetName, PagingKind>> = Object.fromEntries(CATALOG.map((entry) => [entry.name, entry.paging])) as Record<
  DatasetName,
  PagingKind
>;

/** The analytics routes of the sandbox: the dataset catalog's. */
const ANALYTICS = new Set<string>(CATALOG.map((entry) => entry.route));

/**
 * The fewest requests that can export `rows` rows of `dataset` for one day.
 *
 * - One-request datasets (feedback_by_page, caller_stats): exactly 1.
 * - Offset paging: the sandbox, like the service, answers `hasMore = offset + limit < rows`,
 *   so the page holding the last row already says there is no more: ceil(rows / 250), and 1
 *   for an empty day (one request must be sent to learn it is empty).
 * - Cursor paging: the sandbox knows the window's row count and hands out no `nextCursor` on
 *   the page that holds the last row (cursor.ts `collectPage`), even when `rows` is an exact
 *   multiple of the limit. So no request is spent on an empty last page: ceil(rows / limit),
 *   at least 1. (An API that only discovered the end by reading past it would need one more
 *   request on exact multiples; the sandbox's contract does not, so neither may the export.)
 */
export function minimumRequests(dataset: DatasetName, rows: number): number {
  const limit = MAX_LIMIT[dataset];
  if (PAGING_OF[dataset] === 'single' || limit === undefined) return 1;
  return Math.max(1, Math.ceil(rows / limit));
}

// --- requests of a unit, a route, a project ---------------------------------------------------

/** Analytics requests of the log, optionally of one project. */
export function analyticsRequests(entries: readonly RequestLogEntry[], projectId?: string): RequestLogEntry[] {
  return entries.filter((entry) => ANALYTICS.has(entry.route) && (projectId === undefined || entry.projectId === projectId));
}

/** The sandbox's logged requests of one unit (route, project, `dateFrom` = the day). */
export function unitRequests(log: readonly RequestLogEntry[], dataset: DatasetName, projectId: string, day: string): RequestLogEntry[] {
  return log.filter((entry) => entry.route === ROUTE_OF[dataset] && entry.projectId === projectId && entry.query['dateFrom'] === day);
}

/** Visitors requests the sandbox logged, optionally for one project and/or day. */
export function visitorRequests(sandbox: Pick<Sandbox, 'requests'>, filter: { projectId?: string; day?: string } = {}): RequestLogEntry[] {
  return sandbox.requests.filter(
    (entry) =>
      entry.route === 'visitors' &&
      (filter.projectId === undefined || entry.projectId === filter.projectId) &&
      (filter.day === undefined || entry.query['dateFrom'] === filter.day),
  );
}

/** Requests the API refused with 429. */
export function rateLimited(entries: readonly RequestLogEntry[]): RequestLogEntry[] {
  return analyticsRequests(entries).filter((entry) => entry.status === 429);
}

// --- pages ------------------------------------------------------------------------------------

/** What identifies a request's page: its offset or cursor (the first cursor page has none). */
export function pagePosition(entry: RequestLogEntry): string {
  return entry.query['offset'] ?? entry.query['cursor'] ?? '(first page)';
}

/**
 * The page a request asked for: `<route> <project> <day> <position>`, the position being the
 * offset (offset paging) or the cursor (cursor paging; `first` for the first page).
 */
export function pageOf(entry: RequestLogEntry): string {
  const position =
    entry.query['offset'] !== undefined ? `offset=${entry.query['offset']}` : entry.query['cursor'] !== undefined ? `cursor=${entry.query['cursor']}` : 'first';
  return `${entry.route} ${entry.projectId ?? '?'} ${entry.query['dateFrom'] ?? '?'} ${position}`;
}

/** Pages the API answered (HTTP 200), in request order: what the budget paid data for. */
export function pagesServed(entries: readonly RequestLogEntry[]): string[] {
  return analyticsRequests(entries)
    .filter((entry) => entry.status === 200)
    .map(pageOf);
}

/** Pages answered more than once, each named once, in order of first repetition. */
export function repeatedPages(entries: readonly RequestLogEntry[]): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const page of pagesServed(entries)) {
    if (seen.has(page) && !repeated.includes(page)) repeated.push(page);
    seen.add(page);
  }
  return repeated;
}

/** Offsets of the successful (200, unfaulted) visitors requests, in request order. */
export function successfulOffsets(entries: readonly RequestLogEntry[]): number[] {
  return entries.filter((entry) => entry.status === 200 && entry.fault === undefined).map((entry) => Number(entry.query['offset']));
}

// --- pacing -----------------------------------------------------------------------------------

/** The most instants (epoch ms) found in any half-open window [s, s + windowMs). */
export function maxInAnyWindow(starts: readonly number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let max = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= windowMs) first++;
    max = Math.max(max, last - first + 1);
  }
  return max;
}

/** The most analytics requests (any answer) that started within one window `[t, t + windowMs)`. */
export function mostStartsInAnyWindow(entries: readonly RequestLogEntry[], windowMs: number): number {
  return maxInAnyWindow(
    analyticsRequests(entries).map((entry) => entry.startedAt),
    windowMs,
  );
}
