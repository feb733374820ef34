/**
 * The pagers' stop rules, page by page, with no HTTP: each test feeds a pager the views of
 * scripted pages (made by the datasets' own `view`, so the rules see what the export loop
 * gives them) and checks the parameters it asks for and where it stops or fails.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_SPECS } from '../../../functions/export/datasets.js';
import {
  createPager,
  positionText,
  readPagerState,
  samePosition,
  type PageView,
  type Pager,
  type PagerOptions,
  type PagerState,
} from '../../../functions/export/paging.js';
import type { PagingKind } from '../../../functions/warehouse/catalog.js';
import type { FeedbackByPage, PageVisitors, SearchesPage, VisitorsPage } from '../../../functions/shared/api-types.js';
import { PaginationError } from '../../../functions/export/errors.js';

const TOTALS = { human: 900, ai: 300, total: 1100 };
const WHERE = 'visitors proj_a 2026-01-31';

function rows(from: number, count: number): PageVisitors[] {
  return Array.from({ length: count }, (_, i) => ({ path: `/p/${from + i}`, human: 5, ai: 1, total: 6 }));
}

const visitorsPage = (visitors: PageVisitors[], hasMore: boolean, totals = TOTALS): PageView =>
  DATASET_SPECS.visitors.view({ totals, visitors, hasMore } satisfies VisitorsPage);

/** A cursor page as feedback and assistant send it (`hasMore` and `nextCursor`). */
const cursorPage = (rowCount: number, nextCursor: string | null, hasMore: boolean | null = nextCursor !== null): PageView => ({
  rowCount,
  hasMore,
  nextCursor,
});

/** A searches page: no `hasMore`, the cursor alone ends it; `totalSearches` on every page. */
const searchesPage = (count: number, nextCursor: string | null, totalSearches = 40): PageView =>
  DATASET_SPECS.searches.view({
    totalSearches,
    searches: Array.from({ length: count }, (_, i) => ({
      searchQuery: `term ${i}`,
      hits: 1,
      ctr: 0.5,
      topClickedPage: null,
      lastSearchedAt: null,
    })),
    nextCursor,
  } satisfies SearchesPage);

const options = (overrides: Partial<PagerOptions> = {}): PagerOptions => ({ limit: 2, maxPages: 100, where: WHERE, ...overrides });

/**
 * Drives `pager` over `pages` as the export loop does: asks for the parameters, hands it the
 * page, stops when it says done. Returns the parameters asked for and the final state; a
 * broken rule throws out of it.
 */
function drive(pager: Pager, pages: readonly PageView[], start: PagerState = pager.initial) {
  const params: Readonly<Record<string, string | number>>[] = [];
  let state = start;
  for (const page of pages) {
    params.push(pager.params(state));
    const accepted = pager.accept(state, page);
    state = accepted.state;
    if (accepted.done) return { params, state, done: true };
  }
  return { params, state, done: false };
}

/** The error `fn` throws (the test fails when it throws nothing). */
function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

const pagerOf = (kind: PagingKind, overrides: Partial<PagerOptions> = {}) => createPager(kind, options(overrides));

describe('offset paging', () => {
  it('asks for offset += limit while hasMore and stops on the last page', () => {
    const pager = pagerOf('offset');

    const run = drive(pager, [visitorsPage(rows(0, 2), true), visitorsPage(rows(2, 2), true), visitorsPage(rows(4, 1), false)]);

    expect(run.params).toEqual([
      { limit: 2, offset: 0 },
      { limit: 2, offset: 2 },
      { limit: 2, offset: 4 },
    ]);
    expect(run.done).toBe(true);
    expect(run.state.pages).toBe(3);
  });

  it('accepts a day with no rows at all', () => {
    const run = drive(pagerOf('offset'), [visitorsPage([], false, { human: 0, ai: 0, total: 0 })]);

    expect(run).toMatchObject({ done: true, state: { pages: 1 } });
  });

  it('fails on an empty page that says hasMore instead of looping', () => {
    const pager = pagerOf('offset');

    const error = errorOf(() => drive(pager, [visitorsPage(rows(0, 2), true), visitorsPage([], true)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page at offset 2 is empty but says hasMore=true/);
  });

  it('fails on a page that repeats the previous one', () => {
    const error = errorOf(() => drive(pagerOf('offset'), [visitorsPage(rows(0, 2), true), visitorsPage(rows(0, 2), true)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/repeats the previous page/);
  });

  it('fails when the site totals change between pages', () => {
    const error = errorOf(() => drive(pagerOf('offset'), [visitorsPage(rows(0, 2), true), visitorsPage(rows(2, 2), false, { ...TOTALS, total: 1101 })]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/totals changed between pages \(first page: human=900 ai=300 total=1100, page at offset 2: .*total=1101\)/);
  });

  it('fails when a path appears on two pages', () => {
    const error = errorOf(() => drive(pagerOf('offset'), [visitorsPage(rows(0, 2), true), visitorsPage([...rows(2, 1), ...rows(1, 1)], false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/"\/p\/1" appeared again on the page at offset 2/);
  });

  it('fails when a page still says hasMore at the hard page cap instead of truncating', () => {
    const pager = pagerOf('offset', { maxPages: 2 });

    const error = errorOf(() => drive(pager, [visitorsPage(rows(0, 2), true), visitorsPage(rows(2, 2), true), visitorsPage(rows(4, 2), false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/still more pages after 2 \(EXPORT_MAX_PAGES\)/);
  });

  it('accepts a day of exactly the page cap', () => {
    const run = drive(pagerOf('offset', { maxPages: 2 }), [visitorsPage(rows(0, 2), true), visitorsPage(rows(2, 2), false)]);

    expect(run).toMatchObject({ done: true, state: { pages: 2 } });
  });

  it('fails on a page longer than the limit', () => {
    const error = errorOf(() => drive(pagerOf('offset'), [visitorsPage(rows(0, 3), false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/has 3 rows, more than limit=2/);
  });

  it('keeps the first page’s totals as they came, never a sum of pages', () => {
    const run = drive(pagerOf('offset'), [visitorsPage(rows(0, 2), true), visitorsPage(rows(2, 1), false)]);

    expect(run.state.totals).toEqual(TOTALS);
  });

  it('continues from a JSON round trip of its state at the next offset', () => {
    const first = drive(pagerOf('offset'), [visitorsPage(rows(0, 2), true)]);
    const saved = JSON.parse(JSON.stringify(first.state)) as PagerState;

    const resumed = drive(pagerOf('offset'), [visitorsPage(rows(2, 1), false)], saved);

    expect(resumed.params).toEqual([{ limit: 2, offset: 2 }]);
    expect(resumed).toMatchObject({ done: true, state: { pages: 2, totals: TOTALS } });
  });

  it('still detects a path seen before a resume once the staged pages are replayed through it', () => {
    const staged = [visitorsPage(rows(0, 2), true)];
    const pager = pagerOf('offset');
    const replayed = drive(pager, staged);

    const error = errorOf(() => pager.accept(replayed.state, visitorsPage([...rows(2, 1), ...rows(0, 1)], false)));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/"\/p\/0" appeared again/);
  });
});

describe('cursor paging', () => {
  it('asks for the first page without a cursor, then follows each nextCursor until hasMore is false', () => {
    const run = drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(2, 'c2'), cursorPage(1, null, false)]);

    expect(run.params).toEqual([{ limit: 2 }, { limit: 2, cursor: 'c1' }, { limit: 2, cursor: 'c2' }]);
    expect(run).toMatchObject({ done: true, state: { pages: 3 } });
  });

  it('ends a searches-style answer (no hasMore) on nextCursor null', () => {
    const run = drive(pagerOf('cursor'), [searchesPage(2, 'c1'), searchesPage(1, null)]);

    expect(run.params).toEqual([{ limit: 2 }, { limit: 2, cursor: 'c1' }]);
    expect(run).toMatchObject({ done: true, state: { pages: 2, totals: { totalSearches: 40 } } });
  });

  it('follows an empty page that still carries a cursor', () => {
    const run = drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(0, 'c2'), cursorPage(1, null, false)]);

    expect(run.params).toEqual([{ limit: 2 }, { limit: 2, cursor: 'c1' }, { limit: 2, cursor: 'c2' }]);
    expect(run.done).toBe(true);
  });

  it('fails on three empty pages in a row that still carry new cursors, long before the page cap', () => {
    const pages = [cursorPage(2, 'c1'), ...Array.from({ length: 20 }, (_, i) => cursorPage(0, `e${i}`))];

    const error = errorOf(() => drive(pagerOf('cursor', { maxPages: 10_000 }), pages));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page|3 empty pages in a row still carry a new cursor/);
    expect(error.message).toContain('3 empty pages in a row');
  });

  it('follows two empty pages in a row, and counts afresh after a page with rows', () => {
    const run = drive(pagerOf('cursor'), [
      cursorPage(2, 'c1'),
      cursorPage(0, 'c2'),
      cursorPage(0, 'c3'),
      cursorPage(1, 'c4'),
      cursorPage(0, 'c5'),
      cursorPage(0, 'c6'),
      cursorPage(1, null, false),
    ]);

    expect(run.done).toBe(true);
  });

  it('counts empty pages that carry a cursor against the page cap', () => {
    const pager = pagerOf('cursor', { maxPages: 3 });

    const error = errorOf(() => drive(pager, [cursorPage(2, 'c1'), cursorPage(0, 'c2'), cursorPage(0, 'c3'), cursorPage(1, null, false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/still more pages after 3/);
  });

  it('fails when a page returns the cursor it was fetched with', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(2, 'c1')]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page 2 returned a cursor that was already followed; the API is looping/);
  });

  it('fails when a page returns a cursor followed earlier', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(2, 'c2'), cursorPage(2, 'c1')]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page 3 returned a cursor that was already followed/);
  });

  it('remembers followed cursors across a JSON round trip of its state', () => {
    const first = drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(2, 'c2')]);
    const saved = JSON.parse(JSON.stringify(first.state)) as PagerState;

    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(2, 'c1')], saved));

    expect(error).toMatchObject({ name: 'PaginationError', message: expect.stringMatching(/already followed/) });
  });

  it('fails when a page says hasMore but carries no cursor', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(2, 'c1'), cursorPage(2, null, true)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page 2 says hasMore=true but has no nextCursor; the answer contradicts itself/);
  });

  it('fails when a page says hasMore is false but carries a cursor', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(2, 'c1', false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/page 1 says hasMore=false but carries a nextCursor; the answer contradicts itself/);
  });

  it('fails when the totals change between pages', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [searchesPage(2, 'c1', 40), searchesPage(1, null, 41)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/totals changed between pages/);
  });

  it('fails on a page longer than the limit', () => {
    const error = errorOf(() => drive(pagerOf('cursor'), [cursorPage(3, null, false)]));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/has 3 rows, more than limit=2/);
  });
});

describe('single-request paging', () => {
  const feedbackByPage = (count: number, hasMore: boolean): PageView =>
    DATASET_SPECS.feedback_by_page.view({
      feedback: Array.from({ length: count }, (_, i) => ({ path: `/p/${i}`, thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 })),
      hasMore,
    } satisfies FeedbackByPage);

  it('sends one request with the limit and is done after it', () => {
    const run = drive(pagerOf('single'), [feedbackByPage(2, false), feedbackByPage(2, false)]);

    expect(run.params).toEqual([{ limit: 2 }]);
    expect(run.done).toBe(true);
    expect(run.state).toEqual({ kind: 'single', pages: 1 });
  });

  it('marks the unit truncated when the one answer says there is more', () => {
    const run = drive(pagerOf('single'), [feedbackByPage(2, true)]);

    expect(run).toMatchObject({ done: true, state: { pages: 1, truncated: true } });
  });

  it('sends no limit for an endpoint without one', () => {
    const pager = createPager('single', { maxPages: 100, where: 'caller_stats proj_a 2026-01-31' });

    const run = drive(pager, [DATASET_SPECS.caller_stats.view({ web: 1, api: 2, other: 0, total: 3 })]);

    expect(run.params).toEqual([{}]);
    expect(run.done).toBe(true);
  });
});

describe('a stored paging state', () => {
  it("reads a state written before states carried their kind as the dataset's kind", () => {
    expect(readPagerState('offset', { pages: 2, offset: 500, totals: TOTALS, signature: 's' })).toEqual({
      kind: 'offset',
      pages: 2,
      offset: 500,
      totals: TOTALS,
      signature: 's',
    });
    expect(readPagerState('offset', { pages: 0 })).toEqual({ kind: 'offset', pages: 0, offset: 0 });
    expect(readPagerState('cursor', { pages: 1, cursor: 'c1', cursors: [] })).toEqual({ kind: 'cursor', pages: 1, cursor: 'c1', cursors: [] });
    expect(readPagerState('single', { pages: 1, truncated: true })).toEqual({ kind: 'single', pages: 1, truncated: true });
  });

  it('refuses a state of another kind, or one that is not a state', () => {
    expect(readPagerState('offset', { kind: 'cursor', pages: 1, cursor: 'c1' })).toBeUndefined();
    expect(readPagerState('cursor', null)).toBeUndefined();
    expect(readPagerState('cursor', { cursor: 'c1' })).toBeUndefined();
    expect(readPagerState('offset', { pages: 1, offset: -250 })).toBeUndefined();
    expect(readPagerState('offset', { pages: 1, offset: '250' })).toBeUndefined();
  });

  it('resumes a pager from a state read back from JSON', () => {
    const pager = pagerOf('cursor');
    const first = drive(pager, [cursorPage(2, 'c1')]);
    const stored = JSON.parse(JSON.stringify(first.state)) as Record<string, unknown>;
    delete stored.kind;
    const state = readPagerState('cursor', stored) as PagerState;

    expect(pager.params(state)).toEqual({ limit: 2, cursor: 'c1' });
    expect(samePosition(state, first.state)).toBe(true);
    expect(positionText(state)).toBe('cursor "c1"');
    expect(positionText({ kind: 'offset', pages: 2, offset: 500 })).toBe('offset 500');
  });

  it('a pager refuses a state of another kind (a programming error, never a silent restart)', () => {
    expect(() => pagerOf('offset').accept({ kind: 'cursor', pages: 0 }, visitorsPage(rows(0, 1), false))).toThrow(/cursor paging state .* offset pager/);
  });
});
