import { describe, expect, it } from 'vitest';
import { fetchDayPages, type FetchedPage } from '../../../functions/export/pages.js';
import type { PageVisitors, VisitorsPage, VisitorsQuery } from '../../../functions/shared/api-types.js';
import { PaginationError } from '../../../functions/shared/errors.js';

const WINDOW = { from: '2026-01-31', to: '2026-02-01' };
const TOTALS = { human: 900, ai: 300, total: 1100 };

function rows(from: number, count: number): PageVisitors[] {
  return Array.from({ length: count }, (_, i) => ({ path: `/p/${from + i}`, human: 5, ai: 1, total: 6 }));
}

/** A scripted API: each call returns the next page from `pages` and records the query. */
function scriptedApi(pages: VisitorsPage[]) {
  const queries: VisitorsQuery[] = [];
  return {
    queries,
    async getVisitors(_project: string, query: VisitorsQuery): Promise<VisitorsPage> {
      queries.push(query);
      const page = pages[queries.length - 1];
      if (!page) throw new Error(`unexpected request #${queries.length}`);
      return page;
    },
  };
}

async function collect(api: ReturnType<typeof scriptedApi>, limit = 2, maxPages = 100): Promise<FetchedPage[]> {
  const out: FetchedPage[] = [];
  for await (const page of fetchDayPages(api, 'proj_a', WINDOW, { limit, maxPages })) out.push(page);
  return out;
}

describe('fetchDayPages', () => {
  it('pages with offset += limit while hasMore and stops on the last page', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: TOTALS, visitors: rows(2, 2), hasMore: true },
      { totals: TOTALS, visitors: rows(4, 1), hasMore: false },
    ]);
    const pages = await collect(api);
    expect(api.queries.map((q) => [q.offset, q.limit, q.dateFrom, q.dateTo])).toEqual([
      [0, 2, '2026-01-31', '2026-02-01'],
      [2, 2, '2026-01-31', '2026-02-01'],
      [4, 2, '2026-01-31', '2026-02-01'],
    ]);
    expect(pages.flatMap((p) => p.visitors.map((r) => r.path))).toEqual(['/p/0', '/p/1', '/p/2', '/p/3', '/p/4']);
  });

  it('accepts a day with no rows at all', async () => {
    const api = scriptedApi([{ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false }]);
    expect(await collect(api)).toHaveLength(1);
  });

  it('fails on an empty page that says hasMore instead of looping', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: TOTALS, visitors: [], hasMore: true },
    ]);
    await expect(collect(api)).rejects.toThrow(/empty but says hasMore=true/);
  });

  it('fails on a page that repeats the previous one', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
    ]);
    await expect(collect(api)).rejects.toThrow(/repeats the previous page/);
  });

  it('fails when the site totals change between pages', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: { ...TOTALS, total: 1101 }, visitors: rows(2, 2), hasMore: false },
    ]);
    await expect(collect(api)).rejects.toThrow(/site totals changed between pages/);
  });

  it('fails when a path appears on two pages', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: TOTALS, visitors: [...rows(2, 1), ...rows(1, 1)], hasMore: false },
    ]);
    await expect(collect(api)).rejects.toThrow(/path "\/p\/1" appeared again/);
  });

  it('fails past the hard page cap instead of truncating', async () => {
    const api = scriptedApi([
      { totals: TOTALS, visitors: rows(0, 2), hasMore: true },
      { totals: TOTALS, visitors: rows(2, 2), hasMore: true },
    ]);
    await expect(collect(api, 2, 2)).rejects.toThrow(PaginationError);
    expect(api.queries).toHaveLength(2);
  });

  it('fails on a page longer than the limit', async () => {
    const api = scriptedApi([{ totals: TOTALS, visitors: rows(0, 3), hasMore: false }]);
    await expect(collect(api)).rejects.toThrow(/more than limit=2/);
  });

  it('never sums pages into totals: it passes the API totals through unchanged', async () => {
    const api = scriptedApi([{ totals: TOTALS, visitors: rows(0, 2), hasMore: false }]);
    const [page] = await collect(api);
    expect(page?.totals).toEqual(TOTALS);
  });
});
