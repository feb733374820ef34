/**
 * Where a unit's pages come from (functions/export/pages.ts), with a scripted API and the
 * visitors dataset's own pager: staged pages are replayed up to the checkpoint, fetched pages
 * are asked for one at a time, and a checkpoint that no longer fits restarts the unit.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_SPECS, DATASETS, type ReadScope } from '../../../functions/export/datasets.js';
import { pagesOf, RestartUnit, stagedPages, type PageSource } from '../../../functions/export/pages.js';
import { createPager, type PagerState } from '../../../functions/export/paging.js';
import { CHECKPOINT_VERSION, type Checkpoint } from '../../../functions/export/staging.js';
import type { AnalyticsApi } from '../../../functions/shared/api/index.js';
import type { VisitorsPage } from '../../../functions/shared/api-types.js';
import { resolvePolicy } from '../../../functions/warehouse/column-policy.js';
import { ApiError, DestinationError, ResponseTooLargeError } from '../../../functions/shared/errors.js';

const UNIT = { dataset: 'visitors', projectId: 'proj_a', day: '2026-11-20' } as const;
const LIMIT = 2;
const TOTALS = { human: 10, ai: 2, total: 12 };
const def = DATASETS.visitors;
/** What the pages are read with: visitors have no personal column. */
const SCOPE: ReadScope = {
  context: { projectId: UNIT.projectId, date: UNIT.day, exportedAt: new Date('2026-11-21T03:00:00.000Z') },
  privacy: { policy: resolvePolicy({}), erased: new Set<string>() },
};

/** Page `n` (0-based) of a day of `count` pages, `LIMIT` rows each. */
function page(n: number, count: number, totals = TOTALS): VisitorsPage {
  const visitors = Array.from({ length: LIMIT }, (_, i) => ({ path: `/p/${n * LIMIT + i}`, human: 5, ai: 1, total: 6 }));
  return { totals, visitors, hasMore: n < count - 1 };
}

const pager = () => createPager('offset', { limit: LIMIT, maxPages: 100, where: 'visitors proj_a 2026-11-20' });

/** An API answering from `answer(offset, limit)`, recording each request's offset and limit. */
function scriptedApi(answer: (offset: number, limit: number) => unknown): { api: AnalyticsApi; asked: { offset: number; limit: number }[] } {
  const asked: { offset: number; limit: number }[] = [];
  const api = {
    stats: { requests: 0 },
    async getAnalytics(_endpoint: string, _project: string, query: Record<string, unknown>, parse: (body: unknown) => unknown) {
      const offset = Number(query['offset'] ?? 0);
      const limit = Number(query['limit']);
      asked.push({ offset, limit });
      const body = answer(offset, limit);
      if (body instanceof Error) throw body;
      return parse(body);
    },
  } as unknown as AnalyticsApi;
  return { api, asked };
}

function source(api: AnalyticsApi, options: { stop?: AbortSignal } = {}): PageSource {
  return {
    api,
    def,
    unit: UNIT,
    pager: pager(),
    limit: LIMIT,
    call: options.stop ? { stop: options.stop } : {},
    abandoned: new AbortController().signal,
    scope: SCOPE,
  };
}

function checkpointAt(state: PagerState, extra: Partial<Checkpoint> = {}): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    dataset: 'visitors',
    projectId: 'proj_a',
    date: UNIT.day,
    limit: LIMIT,
    startedAt: '2026-11-21T03:00:00.000Z',
    updatedAt: '2026-11-21T03:00:00.000Z',
    state,
    requests: { successful: state.pages, sent: state.pages, retried: 0 },
    runs: 1,
    ...extra,
  };
}

async function collect<T>(pages: AsyncGenerator<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const p of pages) all.push(p);
  return all;
}

describe('pagesOf', () => {
  it('asks for each page in turn, from the first, until the pager says the last one arrived', async () => {
    const { api, asked } = scriptedApi((offset) => page(offset / LIMIT, 3));

    const pages = await collect(pagesOf(source(api), undefined));

    expect(pages.map((p) => [p.index, p.done])).toEqual([
      [0, false],
      [1, false],
      [2, true],
    ]);
    expect(asked.map((a) => a.offset)).toEqual([0, 2, 4]);
  });

  it('sends the next request only when the consumer asks for the next page', async () => {
    const { api, asked } = scriptedApi((offset) => page(offset / LIMIT, 3));
    const pages = pagesOf(source(api), undefined);

    await pages.next();

    expect(asked).toHaveLength(1);
    await pages.return(undefined);
  });

  it('resumes where the checkpoint stands', async () => {
    const { api, asked } = scriptedApi((offset) => page(offset / LIMIT, 3));

    const pages = await collect(pagesOf(source(api), checkpointAt({ kind: 'offset', pages: 2, offset: 4, totals: TOTALS })));

    expect(pages.map((p) => p.index)).toEqual([2]);
    expect(asked.map((a) => a.offset)).toEqual([4]);
  });

  it('sends no request for a checkpoint that holds every page', async () => {
    const { api, asked } = scriptedApi(() => page(0, 1));

    expect(await collect(pagesOf(source(api), checkpointAt({ kind: 'offset', pages: 1, offset: 2 }, { complete: true })))).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('asks again with half the limit when an answer is too large to read', async () => {
    const onePath = { totals: TOTALS, visitors: [{ path: '/only', human: 5, ai: 1, total: 6 }], hasMore: false };
    const { api, asked } = scriptedApi((_offset, limit) => (limit === LIMIT ? new ResponseTooLargeError('too large') : onePath));

    const pages = await collect(pagesOf(source(api), undefined));

    expect(asked.map((a) => a.limit)).toEqual([2, 1]);
    expect(pages.at(-1)?.state.pageLimit).toBe(1);
  });

  it('restarts a resumed unit whose first request is refused (an expired position) or whose totals changed', async () => {
    const refused = scriptedApi(() => new ApiError('bad request (400)', 400));
    const changed = scriptedApi((offset) => page(offset / LIMIT, 3, { human: 11, ai: 2, total: 13 }));
    const resumeAt = checkpointAt({ kind: 'offset', pages: 1, offset: 2, totals: TOTALS });

    await expect(collect(pagesOf(source(refused.api), resumeAt))).rejects.toBeInstanceOf(RestartUnit);
    await expect(collect(pagesOf(source(changed.api), resumeAt))).rejects.toThrow(/totals changed/);
  });

  it('after a gentle stop, yields the page on its way and asks for no other', async () => {
    const stop = new AbortController();
    const { api, asked } = scriptedApi((offset) => page(offset / LIMIT, 3));
    const pages = pagesOf(source(api, { stop: stop.signal }), undefined);

    const first = await pages.next();
    stop.abort(new Error('stopped by the user'));

    expect(first.value).toMatchObject({ index: 0 });
    await expect(pages.next()).rejects.toThrow('stopped by the user');
    expect(asked).toHaveLength(1);
  });
});

describe('stagedPages', () => {
  it('replays the staged pages through the pager, up to the checkpoint', async () => {
    const staged = [page(0, 3), page(1, 3)];
    const p = pager();

    const replayed = await collect(
      stagedPages(checkpointAt({ kind: 'offset', pages: 2, offset: 4 }), { readPage: async (i) => staged[i] }, p, def, () => SCOPE),
    );

    expect(replayed.map((r) => r.index)).toEqual([0, 1]);
    // The pager saw them: the same page again is a duplicate.
    expect(() => p.accept({ kind: 'offset', pages: 2, offset: 4 }, DATASET_SPECS.visitors.view(page(1, 3)))).toThrow();
  });

  it('restarts the unit when a staged page cannot be read, or when the checkpoint does not follow from its pages', async () => {
    const missing = { readPage: async () => Promise.reject(new DestinationError('staged page is missing')) };
    const elsewhere = { readPage: async (i: number) => page(i, 3) };

    await expect(collect(stagedPages(checkpointAt({ kind: 'offset', pages: 1, offset: 2 }), missing, pager(), def, () => SCOPE))).rejects.toBeInstanceOf(
      RestartUnit,
    );
    await expect(collect(stagedPages(checkpointAt({ kind: 'offset', pages: 1, offset: 8 }), elsewhere, pager(), def, () => SCOPE))).rejects.toThrow(
      /does not follow from its 1 staged page/,
    );
  });
});
