/**
 * What the sandbox's request log says about an export: the requests of one dataset, pages
 * answered more than once, and the most requests started within any window.
 */
import { DATASET_CATALOG, type DatasetName } from '../../functions/warehouse/catalog.js';
import type { RequestLogEntry } from '../../sandbox/index.js';

/** Every analytics request the log holds for `dataset` (and `projectId`, when given). */
export function requestsOf(log: readonly RequestLogEntry[], dataset: DatasetName, projectId?: string): RequestLogEntry[] {
  const route = DATASET_CATALOG[dataset].route;
  return log.filter((entry) => entry.route === route && (projectId === undefined || entry.projectId === projectId));
}

/** Which page a request asked for: route, project, window and paging position. */
export function pageKey(entry: RequestLogEntry): string {
  const { dateFrom = '', dateTo = '', offset = '0', cursor = '' } = entry.query;
  return [entry.route, entry.projectId ?? '', dateFrom, dateTo, offset, cursor].join('\u0000');
}

/** Pages answered 200 more than once (a page the budget paid for twice). */
export function refetchedPages(entries: readonly RequestLogEntry[]): number {
  const ok = entries.filter((entry) => entry.status === 200 && entry.fault === undefined);
  return ok.length - new Set(ok.map(pageKey)).size;
}

/**
 * The most of `times` (epoch ms) within any half-open window `[t, t + windowMs)`: the
 * sliding-window count, which bounds every fixed window's count too.
 */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] as number) - (sorted[first] as number) >= windowMs) first += 1;
    best = Math.max(best, last - first + 1);
  }
  return best;
}
