/**
 * Pagination of one day's visitors as a generator: the export consumes pages and never
 * computes offsets. Every stop rule of DESIGN.md lives here, so a day is either paged
 * completely and consistently or the generator throws — it never truncates silently.
 */
import type { ApiClient, CallOptions, PageVisitors, VisitorCounts, VisitorsPage } from '../shared/api-types.js';
import type { DayWindow } from '../shared/dates.js';
import { PaginationError } from '../shared/errors.js';
import { PathSet } from './path-set.js';

export interface PagingOptions {
  /** Rows per request, 1–250. The API's maximum keeps requests (a scarce budget) minimal. @default 250 */
  readonly limit: number;
  /** Hard cap of pages per day; passing it fails the day. @default 10_000 */
  readonly maxPages: number;
  /** Epoch ms after which no request may be started or retried. */
  readonly deadline?: number;
}

export interface FetchedPage {
  /** 0-based page number. */
  readonly index: number;
  readonly offset: number;
  readonly totals: VisitorCounts;
  readonly visitors: readonly PageVisitors[];
}

/**
 * Yields each page of `[window.from, window.to)` in order, fetching the next page while the
 * caller processes the current one (the API's latency then hides local encoding work).
 *
 * Fails with `PaginationError` when: a page is empty but says `hasMore`; a page repeats the
 * previous one; the site totals change between pages; a path appears twice (the data shifted
 * under the offsets, so a row may also have been skipped); a page has more rows than `limit`;
 * or the page cap is passed. Duplicate paths fail the day rather than "later value wins":
 * with offset pagination a duplicate means some other row was pushed past a page boundary and
 * lost, and a warehouse row that silently misses a page is worse than a retried night.
 */
export async function* fetchDayPages(
  api: Pick<ApiClient, 'getVisitors'>,
  projectId: string,
  window: DayWindow,
  options: PagingOptions,
): AsyncGenerator<FetchedPage, void, undefined> {
  const { limit, maxPages } = options;
  const call: CallOptions = options.deadline === undefined ? {} : { deadline: options.deadline };
  const where = `${projectId} ${window.from}`;
  const seenPaths = new PathSet();
  let first: VisitorCounts | undefined;
  let previousSignature: string | undefined;

  const request = (offset: number): Promise<VisitorsPage> => {
    const pending = api.getVisitors(projectId, { dateFrom: window.from, dateTo: window.to, limit, offset }, call);
    // A prefetched page may be abandoned when the consumer stops early; never leave its
    // rejection unhandled.
    pending.catch(() => undefined);
    return pending;
  };

  let next: Promise<VisitorsPage> | undefined = request(0);
  for (let index = 0; next; index++) {
    const offset = index * limit;
    const page: VisitorsPage = await next;
    next = undefined;

    if (page.visitors.length > limit) {
      throw new PaginationError(
        `${where}: page at offset ${offset} has ${page.visitors.length} rows, more than limit=${limit}; the API did not honour the limit`,
      );
    }
    if (page.hasMore && page.visitors.length === 0) {
      throw new PaginationError(
        `${where}: page at offset ${offset} is empty but says hasMore=true; refusing to loop or truncate — re-run the day later`,
      );
    }
    const signature = pageSignature(page);
    if (signature === previousSignature) {
      throw new PaginationError(
        `${where}: page at offset ${offset} repeats the previous page; the API ignored the offset — re-run the day later`,
      );
    }
    previousSignature = signature;

    if (!first) first = page.totals;
    else if (!sameCounts(first, page.totals)) {
      throw new PaginationError(
        `${where}: site totals changed between pages (offset 0: ${countsText(first)}, offset ${offset}: ${countsText(page.totals)}); the day's data changed while paging — re-run it`,
      );
    }

    for (const row of page.visitors) {
      if (!seenPaths.add(row.path)) {
        throw new PaginationError(
          `${where}: path ${JSON.stringify(row.path)} appeared again on the page at offset ${offset}; rows shifted between pages, so one may be missing — re-run the day`,
        );
      }
    }

    if (page.hasMore) {
      if (index + 1 >= maxPages) {
        throw new PaginationError(
          `${where}: still hasMore after ${maxPages} pages (EXPORT_MAX_PAGES); raise the cap if the site really has more than ${maxPages * limit} paths`,
        );
      }
      next = request(offset + limit);
    }
    yield { index, offset, totals: page.totals, visitors: page.visitors };
  }
}

function sameCounts(a: VisitorCounts, b: VisitorCounts): boolean {
  return a.human === b.human && a.ai === b.ai && a.total === b.total;
}

function countsText(c: VisitorCounts): string {
  return `human=${c.human} ai=${c.ai} total=${c.total}`;
}

/** Cheap identity of a page's rows, to detect an API that ignores `offset`. */
function pageSignature(page: VisitorsPage): string {
  const rows = page.visitors;
  if (rows.length === 0) return 'empty';
  const firstRow = rows[0];
  const lastRow = rows[rows.length - 1];
  return JSON.stringify([rows.length, firstRow, lastRow]);
}
