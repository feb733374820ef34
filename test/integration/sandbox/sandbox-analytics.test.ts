/**
 * The sandbox's analytics endpoints beyond visitors (views, searches, feedback,
 * feedback/by-page, assistant, caller-stats) over real HTTP on 127.0.0.1: auth, validation,
 * limits, dates, every kind of paging walked to the end, the data's shape, cursor errors,
 * cursor faults and the generic faults on the new routes. Expected values come from
 * `sandbox.data`, which the exporter's integration tests use the same way.
 */
import { describe, expect, it } from 'vitest';
import {
  createSandboxData,
  FEEDBACK_SOURCES,
  FEEDBACK_STATUSES,
  startSandbox,
  type AnalyticsRoute,
  type ConversationTurn,
  type FeedbackRow,
  type Sandbox,
  type SearchRow,
} from '../../../sandbox/index.js';
import { useSandbox } from '../../helpers/emulators.js';

const DAY = '2026-01-14';
const NEXT_DAY = '2026-01-15';
const DAY_AFTER = '2026-01-16';
const ONE_DAY = { dateFrom: DAY, dateTo: NEXT_DAY };

type Query = Record<string, string | number>;
type Json = Record<string, unknown>;

/** Path after `/v1/analytics/{projectId}/` of each route this suite covers. */
const PATHS = {
  views: 'views',
  searches: 'searches',
  feedback: 'feedback',
  'feedback-by-page': 'feedback/by-page',
  assistant: 'assistant',
  'caller-stats': 'assistant/caller-stats',
} as const satisfies Partial<Record<AnalyticsRoute, string>>;
type Route = keyof typeof PATHS;
const ROUTES = Object.keys(PATHS) as Route[];

const CURSOR_ROUTES = [
  ['searches', 'searches'],
  ['feedback', 'feedback'],
  ['assistant', 'conversations'],
] as const;
type CursorRoute = (typeof CURSOR_ROUTES)[number][0];

function url(sandbox: Sandbox, projectId: string, route: Route, query: Query): string {
  const params = new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]));
  return `${sandbox.url}/v1/analytics/${encodeURIComponent(projectId)}/${PATHS[route]}?${params}`;
}

async function call(sandbox: Sandbox, projectId: string, route: Route, query: Query, init: RequestInit = {}): Promise<Response> {
  return fetch(url(sandbox, projectId, route, query), { headers: { authorization: `Bearer ${sandbox.apiKey}` }, ...init });
}

async function getBody<T = Json>(sandbox: Sandbox, projectId: string, route: Route, query: Query): Promise<T> {
  const response = await call(sandbox, projectId, route, query);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Walks a cursor route the way a correct client does: follow nextCursor until null. */
async function walkCursor<Row>(
  sandbox: Sandbox,
  projectId: string,
  route: CursorRoute,
  query: Query,
  maxPages = 1_000,
): Promise<{ rows: Row[]; pages: Json[] }> {
  const key = route === 'assistant' ? 'conversations' : route;
  const pages: Json[] = [];
  let cursor: string | null = null;
  do {
    const page: Json = await getBody(sandbox, projectId, route, { ...query, ...(cursor === null ? {} : { cursor }) });
    pages.push(page);
    cursor = page.nextCursor as string | null;
    if (pages.length > maxPages) throw new Error(`more than ${maxPages} pages`);
  } while (cursor !== null);
  return { rows: pages.flatMap((page) => page[key] as Row[]), pages };
}

/** A valid cursor to the second page of a route. */
async function secondPageCursor(sandbox: Sandbox, projectId: string, route: CursorRoute, query: Query = ONE_DAY): Promise<string> {
  const first = await getBody(sandbox, projectId, route, { ...query, limit: 5 });
  expect(typeof first.nextCursor).toBe('string');
  return first.nextCursor as string;
}

async function expectBadRequest(response: Response, mentioned: string | RegExp): Promise<void> {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: unknown; details: { message: unknown }[] };
  expect(body).toEqual({ error: expect.any(String), details: [{ message: expect.any(String) }] });
  expect(`${String(body.error)} ${body.details.map((detail) => String(detail.message)).join(' ')}`).toMatch(mentioned);
}

describe('sandbox analytics endpoints', () => {
  let sandbox: Sandbox;

  useSandbox({}, (started) => (sandbox = started), { clearAfterEach: true });

  describe('auth, projects and validation', () => {
    it('still serves the configured projects after more synthetic projects than its caches hold', async () => {
      const data = createSandboxData({ projects: [{ id: 'proj_kept', paths: 3 }] });
      for (let n = 1; n <= 10_050; n++) expect(data.hasProject(`proj_synth_${n}`)).toBe(true);
      expect(data.hasProject('proj_kept')).toBe(true);
      expect(data.rows('visitors', 'proj_kept', DAY)).toHaveLength(3);
    });

    it.each(ROUTES)('%s answers 401 with {error} without an Authorization header', async (route) => {
      const response = await fetch(url(sandbox, 'proj_small', route, ONE_DAY));

      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    });

    it.each(ROUTES)('%s answers 401 for a wrong admin key', async (route) => {
      const response = await call(sandbox, 'proj_small', route, ONE_DAY, {
        headers: { authorization: 'Bearer mint_wrong_1111111111111111' },
      });

      expect(response.status).toBe(401);
    });

    it.each(ROUTES)('%s answers 403 for an assistant key', async (route) => {
      const response = await call(sandbox, 'proj_small', route, ONE_DAY, {
        headers: { authorization: 'Bearer mint_dsc_0000000000000000' },
      });

      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toMatch(/assistant/);
    });

    it.each(ROUTES)('%s answers 404 with {error} for an unknown project', async (route) => {
      const response = await call(sandbox, 'proj_nope', route, ONE_DAY);

      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    });

    it.each(ROUTES)('%s answers 405 to a POST', async (route) => {
      const response = await call(sandbox, 'proj_small', route, ONE_DAY, { method: 'POST' });

      expect(response.status).toBe(405);
    });

    it.each(ROUTES)('%s answers 400 with {error, details:[{message}]} for an impossible dateFrom', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_small', route, { dateFrom: '2026-02-30', dateTo: NEXT_DAY }), /dateFrom/);
    });

    it.each(ROUTES)('%s answers 400 for a malformed dateTo', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_small', route, { dateFrom: DAY, dateTo: '14/01/2026' }), /dateTo/);
    });

    it.each(ROUTES)('%s answers 400 when dateTo is not after dateFrom (dateTo is exclusive)', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_small', route, { dateFrom: DAY, dateTo: DAY }), /exclusive/);
    });

    it.each(ROUTES)('%s accepts ISO 8601 date-times as well as YYYY-MM-DD', async (route) => {
      const plain = await getBody(sandbox, 'proj_small', route, ONE_DAY);
      const iso = await getBody(sandbox, 'proj_small', route, { dateFrom: `${DAY}T00:00:00Z`, dateTo: `${NEXT_DAY}T00:00:00.000Z` });

      expect(iso).toEqual(plain);
    });

    it.each(ROUTES)('%s logs each request under its own route name with its status', async (route) => {
      await call(sandbox, 'proj_small', route, ONE_DAY);
      await call(sandbox, 'proj_small', route, { dateFrom: 'soon' });

      expect(sandbox.requests).toEqual([
        expect.objectContaining({ method: 'GET', route, projectId: 'proj_small', query: ONE_DAY, status: 200 }),
        expect.objectContaining({ route, status: 400 }),
      ]);
    });

    it('answers 404 for an analytics path the service does not have', async () => {
      const response = await fetch(`${sandbox.url}/v1/analytics/proj_small/assistant/threads`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      });

      expect(response.status).toBe(404);
      expect(sandbox.requests.at(-1)).toMatchObject({ route: 'other', status: 404 });
    });
  });

  describe('limits', () => {
    // proj_synth_1500 has 1,500 rows in every paged dataset: more than any maximum but assistant's.
    it.each([
      ['views', 250],
      ['searches', 100],
      ['feedback', 100],
      ['feedback-by-page', 100],
      ['assistant', 1000],
    ] as const)('%s answers 400 for a limit above %i', async (route, max) => {
      await expectBadRequest(await call(sandbox, 'proj_synth_1500', route, { ...ONE_DAY, limit: max + 1 }), /limit/);
    });

    it.each(['views', 'searches', 'feedback', 'feedback-by-page', 'assistant'] as const)('%s answers 400 for limit 0', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_synth_1500', route, { ...ONE_DAY, limit: 0 }), /limit/);
    });

    it.each(['views', 'searches', 'feedback', 'feedback-by-page', 'assistant'] as const)('%s answers 400 for a fractional limit', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_synth_1500', route, { ...ONE_DAY, limit: '2.5' }), /limit/);
    });

    it.each([
      ['views', 'views', 250],
      ['searches', 'searches', 100],
      ['feedback', 'feedback', 100],
      ['feedback-by-page', 'feedback', 100],
      ['assistant', 'conversations', 1000],
    ] as const)('%s serves %s rows up to its maximum limit of %i', async (route, key, max) => {
      const body = await getBody(sandbox, 'proj_synth_1500', route, { ...ONE_DAY, limit: max });

      expect(body[key]).toHaveLength(max);
    });

    it.each([
      ['views', 'views', 50],
      ['searches', 'searches', 50],
      ['feedback', 'feedback', 50],
      ['feedback-by-page', 'feedback', 10],
      ['assistant', 'conversations', 100],
    ] as const)('%s serves %s rows by the default limit of %i', async (route, key, fallback) => {
      const body = await getBody(sandbox, 'proj_synth_1500', route, ONE_DAY);

      expect(body[key]).toHaveLength(fallback);
    });

    it('views answers 400 for a negative offset', async () => {
      await expectBadRequest(await call(sandbox, 'proj_small', 'views', { ...ONE_DAY, offset: -1 }), /offset/);
    });
  });

  describe('views (offset paging)', () => {
    it('covers every path of a day exactly once, in the order of sandbox.data', async () => {
      const pages: { totals: unknown; views: { path: string }[]; hasMore: boolean }[] = [];
      for (let offset = 0; ; offset += 250) {
        const page = await getBody<(typeof pages)[number]>(sandbox, 'proj_medium', 'views', { ...ONE_DAY, limit: 250, offset });
        pages.push(page);
        if (!page.hasMore) break;
      }

      const rows = pages.flatMap((page) => page.views);
      const expected = sandbox.data.day('views', 'proj_medium', DAY);
      expect(rows).toEqual(expected.rows);
      expect(new Set(rows.map((row) => row.path)).size).toBe(rows.length);
      expect(pages.map((page) => page.totals)).toEqual(pages.map(() => expected.totals));
    });

    it('counts view events as the dashboard export defines them: total = human + ai, per page and in the totals', async () => {
      const { rows, totals } = sandbox.data.day('views', 'proj_medium', DAY);
      expect(rows.length).toBeGreaterThan(1_000);
      for (const row of rows) expect(row.total).toBe(row.human + row.ai);
      expect(totals.total).toBe(totals.human + totals.ai);

      // Over HTTP and over several days (sums of the days) as well.
      const page = await getBody<{ totals: { human: number; ai: number; total: number }; views: { human: number; ai: number; total: number }[] }>(
        sandbox,
        'proj_small',
        'views',
        { dateFrom: DAY, dateTo: DAY_AFTER, limit: 250 },
      );
      expect(page.views.length).toBe(250);
      for (const row of page.views) expect(row.total).toBe(row.human + row.ai);
      expect(page.totals.total).toBe(page.totals.human + page.totals.ai);
    });

    it("keeps visitors' total a deduplicated count, at most human + ai and usually below it", () => {
      const { rows, totals } = sandbox.data.day('visitors', 'proj_medium', DAY);
      for (const row of rows) {
        expect(row.total).toBeGreaterThanOrEqual(Math.max(row.human, row.ai));
        expect(row.total).toBeLessThanOrEqual(row.human + row.ai);
      }
      const busy = rows.filter((row) => row.total >= 20);
      expect(busy.length).toBeGreaterThan(20);
      expect(busy.filter((row) => row.total < row.human + row.ai).length).toBeGreaterThan(busy.length / 2);
      expect(totals.total).toBeLessThan(totals.human + totals.ai);
    });

    it('differs from the visitors of the same day', () => {
      expect(sandbox.data.rows('views', 'proj_small', DAY).slice(0, 20)).not.toEqual(sandbox.data.rows('visitors', 'proj_small', DAY).slice(0, 20));
    });

    it('excludes dateTo: a two-day window sums the two days', async () => {
      const page = await getBody<{ totals: { total: number } }>(sandbox, 'proj_small', 'views', { dateFrom: DAY, dateTo: DAY_AFTER, limit: 1 });

      const first = sandbox.data.day('views', 'proj_small', DAY).totals.total;
      const second = sandbox.data.day('views', 'proj_small', NEXT_DAY).totals.total;
      expect(page.totals.total).toBe(first + second);
    });
  });

  describe('searches (opaque cursor, no hasMore)', () => {
    it('walks every term of a day exactly once, in the order of sandbox.data', async () => {
      const { rows, pages } = await walkCursor<SearchRow>(sandbox, 'proj_medium', 'searches', { ...ONE_DAY, limit: 100 });

      expect(pages.length).toBe(Math.ceil(rows.length / 100));
      expect(rows).toEqual(sandbox.data.rows('searches', 'proj_medium', DAY));
      expect(new Set(rows.map((row) => row.searchQuery.toLowerCase())).size).toBe(rows.length);
    });

    it('has no hasMore field and ends with nextCursor null', async () => {
      const { pages } = await walkCursor(sandbox, 'proj_medium', 'searches', { ...ONE_DAY, limit: 100 });

      for (const page of pages) expect(Object.keys(page).sort()).toEqual(['nextCursor', 'searches', 'totalSearches']);
      expect(pages.at(-1)?.nextCursor).toBeNull();
      expect(pages.slice(0, -1).every((page) => typeof page.nextCursor === 'string')).toBe(true);
    });

    it('ends without an empty page when the last page is exactly full', async () => {
      const { pages } = await walkCursor(sandbox, 'proj_synth_200', 'searches', { ...ONE_DAY, limit: 100 });

      expect(pages.map((page) => (page.searches as unknown[]).length)).toEqual([100, 100]);
    });

    it('sends the same totalSearches on every page: the sum of hits, not the number of terms', async () => {
      const { rows, pages } = await walkCursor<SearchRow>(sandbox, 'proj_medium', 'searches', { ...ONE_DAY, limit: 100 });

      const sum = rows.reduce((acc, row) => acc + row.hits, 0);
      expect(new Set(pages.map((page) => page.totalSearches))).toEqual(new Set([sum]));
      expect(sum).toBeGreaterThan(rows.length);
      expect(sandbox.data.day('searches', 'proj_medium', DAY).totalSearches).toBe(sum);
    });

    it('orders terms by hits descending', () => {
      const rows = sandbox.data.rows('searches', 'proj_medium', DAY);

      for (let i = 1; i < rows.length; i++) expect(rows[i]!.hits).toBeLessThanOrEqual(rows[i - 1]!.hits);
    });

    it('sends ctr as a number from 0 to 1, with a null topClickedPage exactly when ctr is 0', () => {
      const rows = sandbox.data.rows('searches', 'proj_medium', DAY);

      for (const row of rows) {
        expect(row.ctr).toBeGreaterThanOrEqual(0);
        expect(row.ctr).toBeLessThanOrEqual(1);
        expect(row.topClickedPage === null).toBe(row.ctr === 0);
      }
      expect(rows.filter((row) => row.topClickedPage === null).length).toBeGreaterThan(10);
      expect(rows.filter((row) => row.ctr > 0 && row.ctr < 1).length).toBeGreaterThan(10);
    });

    it('sends lastSearchedAt as an ISO timestamp inside the day', () => {
      for (const row of sandbox.data.rows('searches', 'proj_medium', DAY)) {
        expect(row.lastSearchedAt).toMatch(/^2026-01-14T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    });

    it('round-trips unicode terms (accents, CJK, emoji, combining marks) byte for byte', async () => {
      const { rows } = await walkCursor<SearchRow>(sandbox, 'proj_large', 'searches', { ...ONE_DAY, limit: 100 });

      const terms = rows.map((row) => row.searchQuery);
      for (const pattern of [/café/, /日本語/, /\p{Extended_Pictographic}/u, /e\u0301cole/, /"api-key"/, /\t/]) {
        expect(terms.some((term) => pattern.test(term))).toBe(true);
      }
      expect(terms).toEqual(sandbox.data.rows('searches', 'proj_large', DAY).map((row) => row.searchQuery));
    });

    it('merges a two-day window: hits summed per term, still by hits descending', async () => {
      const { rows, pages } = await walkCursor<SearchRow>(sandbox, 'proj_small', 'searches', { dateFrom: DAY, dateTo: DAY_AFTER, limit: 100 });

      const byTerm = new Map<string, number>();
      for (const day of [DAY, NEXT_DAY]) {
        for (const row of sandbox.data.rows('searches', 'proj_small', day)) byTerm.set(row.searchQuery, (byTerm.get(row.searchQuery) ?? 0) + row.hits);
      }
      expect(new Map(rows.map((row) => [row.searchQuery, row.hits]))).toEqual(byTerm);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.hits).toBeLessThanOrEqual(rows[i - 1]!.hits);
      expect(pages[0]?.totalSearches).toBe([...byTerm.values()].reduce((a, b) => a + b, 0));
    });
  });

  describe('feedback (opaque cursor, filters)', () => {
    it('walks every row of a day exactly once, in the order of sandbox.data', async () => {
      const { rows, pages } = await walkCursor<FeedbackRow>(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, limit: 100 });

      expect(rows).toEqual(sandbox.data.rows('feedback', 'proj_medium', DAY));
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
      expect(pages.map((page) => page.hasMore)).toEqual(pages.map((_, i) => i < pages.length - 1));
      expect(pages.at(-1)?.nextCursor).toBeNull();
    });

    it('serves only the rows matching comma-separated source and status filters, every one once', async () => {
      const query = { ...ONE_DAY, limit: 7, source: 'contextual,code_snippet', status: 'pending,resolved' };

      const { rows } = await walkCursor<FeedbackRow>(sandbox, 'proj_medium', 'feedback', query);

      const expected = sandbox.data
        .rows('feedback', 'proj_medium', DAY)
        .filter((row) => ['contextual', 'code_snippet'].includes(row.source) && ['pending', 'resolved'].includes(row.status));
      expect(expected.length).toBeGreaterThan(20);
      expect(rows).toEqual(expected);
    });

    it('ends with hasMore false when no later row matches the filter', async () => {
      const last = sandbox.data.rows('feedback', 'proj_medium', DAY).filter((row) => row.source === 'agent');

      const { pages } = await walkCursor(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, source: 'agent', limit: last.length });

      expect(pages).toHaveLength(1);
      expect(pages[0]).toMatchObject({ nextCursor: null, hasMore: false });
    });

    it.each([
      ['an unknown source', { source: 'email' }, 'source'],
      ['an unknown status', { status: 'open' }, 'status'],
      ['an empty source', { source: '' }, 'source'],
      ['one bad value in a list', { status: 'pending,closed' }, 'status'],
    ])('answers 400 for %s', async (_name, query, mentioned) => {
      await expectBadRequest(await call(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, ...query }), new RegExp(mentioned));
    });

    it('refuses a cursor issued for other filters', async () => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, source: 'contextual' });

      await expectBadRequest(await call(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, source: 'agent', cursor }), /cursor/);
    });

    it('sends every source with its own fields and only those', () => {
      const rows = sandbox.data.rows('feedback', 'proj_medium', DAY);

      const common = ['comment', 'createdAt', 'id', 'path', 'source', 'status'];
      const extra = { contextual: ['contact', 'helpful'], code_snippet: ['code', 'filename', 'lang'], agent: [], thumbs_only: [] };
      expect(new Set(rows.map((row) => row.source))).toEqual(new Set(FEEDBACK_SOURCES));
      for (const row of rows) expect(Object.keys(row).sort()).toEqual([...common, ...extra[row.source]].sort());
    });

    it('sends every status', () => {
      expect(new Set(sandbox.data.rows('feedback', 'proj_medium', DAY).map((row) => row.status))).toEqual(new Set(FEEDBACK_STATUSES));
    });

    it('sends null comments, null createdAt, null contacts, null filenames and null langs now and then', () => {
      const rows = sandbox.data.rows('feedback', 'proj_large', DAY);

      expect(rows.some((row) => row.comment === null)).toBe(true);
      expect(rows.some((row) => row.createdAt === null)).toBe(true);
      expect(rows.some((row) => row.source === 'contextual' && row.contact === null)).toBe(true);
      expect(rows.some((row) => row.source === 'code_snippet' && row.filename === null)).toBe(true);
      expect(rows.some((row) => row.source === 'code_snippet' && row.lang === null)).toBe(true);
    });

    it('sends contacts as e-mail addresses and createdAt inside the day', () => {
      const rows = sandbox.data.rows('feedback', 'proj_large', DAY);

      const contacts = rows.flatMap((row) => (row.source === 'contextual' && row.contact !== null ? [row.contact] : []));
      expect(contacts.length).toBeGreaterThan(10);
      // One is padded and capitalised on purpose (` Ops-Team@Example.IO `): its HMAC is that of the trimmed, lower-cased address.
      for (const contact of contacts) expect(contact).toMatch(/^ ?[^@\s]+@[^@\s]+\.[A-Za-z]+ ?$/);
      for (const row of rows) if (row.createdAt !== null) expect(row.createdAt.startsWith(DAY)).toBe(true);
    });

    it('round-trips unicode comments byte for byte', async () => {
      const { rows } = await walkCursor<FeedbackRow>(sandbox, 'proj_large', 'feedback', { ...ONE_DAY, limit: 100 });

      const comments = rows.flatMap((row) => (row.comment === null ? [] : [row.comment]));
      for (const pattern of [/この例/, /Ошибка/, /\p{Extended_Pictographic}/u, /\n/, /\\/]) {
        expect(comments.some((comment) => pattern.test(comment))).toBe(true);
      }
      expect(rows).toEqual(sandbox.data.rows('feedback', 'proj_large', DAY));
    });

    it('serves a status changed in the dashboard from then on', async () => {
      const own = await startSandbox();
      try {
        const target = own.data.rows('feedback', 'proj_small', DAY)[3]!;
        const status = target.status === 'resolved' ? 'dismissed' : 'resolved';

        const changed = await fetch(`${own.url}/_sandbox/feedback/proj_small/${target.id}`, {
          method: 'POST',
          body: JSON.stringify({ status }),
        });
        const { rows } = await walkCursor<FeedbackRow>(own, 'proj_small', 'feedback', { ...ONE_DAY, limit: 100 });

        expect(changed.status).toBe(204);
        expect(rows.find((row) => row.id === target.id)).toEqual({ ...target, status });
        expect(own.data.rows('feedback', 'proj_small', DAY)[3]?.status).toBe(status);
      } finally {
        await own.close();
      }
    });
  });

  describe('feedback by page (no paging)', () => {
    it.each([DAY, NEXT_DAY, '2026-03-01'])('leaves pages out with hasMore true for proj_large on %s', async (day) => {
      const body = await getBody<{ feedback: unknown[]; hasMore: boolean }>(sandbox, 'proj_large', 'feedback-by-page', {
        dateFrom: day,
        dateTo: new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10),
        limit: 100,
      });

      const expected = sandbox.data.day('feedback_by_page', 'proj_large', day);
      expect(body.feedback).toHaveLength(100);
      expect(body.hasMore).toBe(true);
      expect(expected.pages).toBeGreaterThan(100);
      expect(body.feedback).toEqual(expected.rows);
    });

    it('serves every page with hasMore false when they fit in the limit', async () => {
      const expected = sandbox.data.day('feedback_by_page', 'proj_small', DAY);

      const body = await getBody(sandbox, 'proj_small', 'feedback-by-page', { ...ONE_DAY, limit: 100 });

      expect(expected.pages).toBeLessThan(100);
      expect(body).toEqual({ feedback: expected.rows, hasMore: false });
    });

    it('aggregates the feedback rows: thumbs from contextual, code from code snippets, total from all', () => {
      const byPath = new Map<string, { thumbsUp: number; thumbsDown: number; code: number; total: number }>();
      for (const row of sandbox.data.rows('feedback', 'proj_medium', DAY)) {
        const page = byPath.get(row.path) ?? { thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
        page.total += 1;
        if (row.source === 'contextual') page[row.helpful ? 'thumbsUp' : 'thumbsDown'] += 1;
        if (row.source === 'code_snippet') page.code += 1;
        byPath.set(row.path, page);
      }

      const rows = sandbox.data.rows('feedback_by_page', 'proj_medium', DAY);

      expect(rows.length).toBe(Math.min(100, byPath.size));
      for (const row of rows) expect(row).toEqual({ path: row.path, ...byPath.get(row.path) });
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.total).toBeLessThanOrEqual(rows[i - 1]!.total);
    });

    it('ignores a cursor or an offset: there is no second page', async () => {
      const first = await getBody(sandbox, 'proj_large', 'feedback-by-page', ONE_DAY);
      const again = await getBody(sandbox, 'proj_large', 'feedback-by-page', { ...ONE_DAY, offset: 10, cursor: 'next' });

      expect(again).toEqual(first);
    });
  });

  describe('assistant (ULID cursor)', () => {
    it('walks every turn of a day exactly once, in the order of sandbox.data', async () => {
      const { rows, pages } = await walkCursor<ConversationTurn>(sandbox, 'proj_synth_2500', 'assistant', { ...ONE_DAY, limit: 1000 });

      expect(pages).toHaveLength(3);
      expect(rows).toHaveLength(2500);
      expect(new Set(rows.map((row) => `${row.id} ${row.timestamp}`)).size).toBe(2500);
      expect(rows).toEqual(sandbox.data.rows('assistant', 'proj_synth_2500', DAY));
      expect(pages.map((page) => page.hasMore)).toEqual([true, true, false]);
    });

    it('hands out ULID-looking cursors', async () => {
      const cursor = await secondPageCursor(sandbox, 'proj_small', 'assistant');

      expect(cursor).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    });

    it('accepts a ULID cursor in lowercase', async () => {
      const cursor = await secondPageCursor(sandbox, 'proj_small', 'assistant');

      const upper = await getBody(sandbox, 'proj_small', 'assistant', { ...ONE_DAY, limit: 5, cursor });
      const lower = await getBody(sandbox, 'proj_small', 'assistant', { ...ONE_DAY, limit: 5, cursor: cursor.toLowerCase() });

      expect(lower).toEqual(upper);
    });

    it('repeats a conversation id on every turn of a multi-turn conversation', () => {
      const rows = sandbox.data.rows('assistant', 'proj_medium', DAY);

      const turns = new Map<string, ConversationTurn[]>();
      for (const row of rows) turns.set(row.id, [...(turns.get(row.id) ?? []), row]);
      const multi = [...turns.values()].filter((list) => list.length > 1);
      expect(multi.length).toBeGreaterThan(50);
      for (const list of multi) {
        expect(list.length).toBeLessThanOrEqual(4);
        const times = list.map((row) => Date.parse(row.timestamp));
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    });

    it('keeps timestamps inside the day but not in ascending order', () => {
      const times = sandbox.data.rows('assistant', 'proj_medium', DAY).map((row) => row.timestamp);

      for (const time of times) expect(time).toMatch(/^2026-01-14T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(times).not.toEqual([...times].sort());
    });

    it('leaves responseType out on some answers and sends clarifying questions on others', () => {
      const rows = sandbox.data.rows('assistant', 'proj_medium', DAY);

      expect(rows.some((row) => !('responseType' in row))).toBe(true);
      expect(rows.some((row) => row.responseType === 'answer')).toBe(true);
      expect(rows.some((row) => row.responseType === 'clarifying_question')).toBe(true);
    });

    it('sends 0 to 4 sources, both resolution statuses and null categories and page URLs now and then', () => {
      const rows = sandbox.data.rows('assistant', 'proj_medium', DAY);

      expect(new Set(rows.map((row) => row.sources.length))).toEqual(new Set([0, 1, 2, 3, 4]));
      for (const row of rows) for (const source of row.sources) expect(Object.keys(source).sort()).toEqual(['title', 'url']);
      expect(new Set(rows.map((row) => row.resolutionStatus))).toEqual(new Set(['answered', 'unanswered']));
      expect(rows.some((row) => row.queryCategory === null)).toBe(true);
      expect(rows.some((row) => row.pageUrl === null)).toBe(true);
    });

    it('excludes dateTo: a two-day window holds the turns of both days', async () => {
      const { rows } = await walkCursor<ConversationTurn>(sandbox, 'proj_small', 'assistant', { dateFrom: DAY, dateTo: DAY_AFTER, limit: 1000 });

      const both = [...sandbox.data.rows('assistant', 'proj_small', DAY), ...sandbox.data.rows('assistant', 'proj_small', NEXT_DAY)];
      expect(rows).toHaveLength(both.length);
      expect(new Set(rows.map((row) => `${row.id} ${row.timestamp}`))).toEqual(new Set(both.map((row) => `${row.id} ${row.timestamp}`)));
    });
  });

  describe('caller stats (one request)', () => {
    it('serves {web, api, other, total} with total their sum and equal to the day’s assistant turns', async () => {
      const body = await getBody<{ web: number; api: number; other: number; total: number }>(sandbox, 'proj_medium', 'caller-stats', ONE_DAY);

      expect(Object.keys(body).sort()).toEqual(['api', 'other', 'total', 'web']);
      expect(body.total).toBe(body.web + body.api + body.other);
      expect(body.total).toBe(sandbox.data.rowCount('assistant', 'proj_medium', DAY));
      expect(sandbox.data.rows('caller_stats', 'proj_medium', DAY)).toEqual([body]);
    });

    it('sums the days of a window and excludes dateTo', async () => {
      const two = await getBody<{ total: number }>(sandbox, 'proj_small', 'caller-stats', { dateFrom: DAY, dateTo: DAY_AFTER });

      const [first, second] = [DAY, NEXT_DAY].map((day) => sandbox.data.rows('caller_stats', 'proj_small', day)[0]!.total);
      expect(two.total).toBe(first! + second!);
    });
  });

  describe('data: determinism, variety and sizing', () => {
    it.each(['views', 'searches', 'feedback', 'assistant'] as const)('gives proj_synth_<N> exactly N %s rows every day', (dataset) => {
      for (const day of [DAY, '2026-06-30']) expect(sandbox.data.rowCount(dataset, 'proj_synth_777', day)).toBe(777);
    });

    it('serves a 200,000-turn synthetic day lazily: counts at once, pages on demand', async () => {
      const stats = await getBody<{ total: number }>(sandbox, 'proj_synth_200000', 'caller-stats', ONE_DAY);
      const page = await getBody<{ conversations: unknown[]; hasMore: boolean }>(sandbox, 'proj_synth_200000', 'assistant', { ...ONE_DAY, limit: 1000 });

      expect(stats.total).toBe(200_000);
      expect(page.conversations).toHaveLength(1000);
      expect(page.hasMore).toBe(true);
    });

    it.each(['views', 'searches', 'feedback', 'assistant'] as const)('varies %s from day to day and from project to project', (dataset) => {
      const first = sandbox.data.rows(dataset, 'proj_medium', DAY).slice(0, 10);

      expect(sandbox.data.rows(dataset, 'proj_medium', NEXT_DAY).slice(0, 10)).not.toEqual(first);
      expect(sandbox.data.rows(dataset, 'proj_synth_2500', DAY).slice(0, 10)).not.toEqual(first);
    });

    it('serves the same rows from another sandbox with the same seed and others with another seed', async () => {
      const twin = await startSandbox({ seed: 42 });
      const other = await startSandbox({ seed: 7 });
      try {
        for (const dataset of ['searches', 'feedback', 'assistant'] as const) {
          expect(twin.data.rows(dataset, 'proj_small', DAY)).toEqual(sandbox.data.rows(dataset, 'proj_small', DAY));
          expect(other.data.rows(dataset, 'proj_small', DAY)).not.toEqual(sandbox.data.rows(dataset, 'proj_small', DAY));
        }
      } finally {
        await Promise.all([twin.close(), other.close()]);
      }
    });

    it('sizes datasets per project with ProjectSeed.rows, 0 feedback meaning feedback switched off', async () => {
      const sized = await startSandbox({ projects: [{ id: 'proj_custom', paths: 10, rows: { searches: 3, feedback: 0, assistant: 5 } }] });
      try {
        const feedback = await getBody(sized, 'proj_custom', 'feedback', ONE_DAY);

        expect(feedback).toEqual({ feedback: [], nextCursor: null, hasMore: false });
        expect(sized.data.rowCount('searches', 'proj_custom', DAY)).toBe(3);
        expect(sized.data.rowCount('assistant', 'proj_custom', NEXT_DAY)).toBe(5);
        expect(sized.data.day('feedback_by_page', 'proj_custom', DAY)).toEqual({ rows: [], hasMore: false, pages: 0 });
      } finally {
        await sized.close();
      }
    });

    it('refuses to describe an unknown project or an impossible day', () => {
      expect(() => sandbox.data.rows('feedback', 'proj_nope', DAY)).toThrow(/proj_nope/);
      expect(() => sandbox.data.rows('feedback', 'proj_small', '2026-02-30')).toThrow(/2026-02-30/);
    });
  });

  describe('cursor errors', () => {
    it.each(CURSOR_ROUTES)('%s answers 400 with {error, details:[{message}]} for a malformed cursor', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_small', route, { ...ONE_DAY, cursor: 'not-a-cursor' }), /cursor/);
    });

    it.each(CURSOR_ROUTES)('%s answers 400 for an empty cursor', async (route) => {
      await expectBadRequest(await call(sandbox, 'proj_small', route, { ...ONE_DAY, cursor: '' }), /cursor/);
    });

    it.each(CURSOR_ROUTES)('%s answers 400 for an edited cursor', async (route) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);
      const last = cursor.at(-1) === 'A' ? 'B' : 'A';

      await expectBadRequest(await call(sandbox, 'proj_medium', route, { ...ONE_DAY, cursor: `${cursor.slice(0, -1)}${last}` }), /cursor/);
    });

    it.each(CURSOR_ROUTES)('%s answers 400 for a cursor of another project', async (route) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);

      await expectBadRequest(await call(sandbox, 'proj_small', route, { ...ONE_DAY, cursor }), /cursor/);
    });

    it.each(CURSOR_ROUTES)('%s answers 400 for a cursor of another date window', async (route) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);

      await expectBadRequest(await call(sandbox, 'proj_medium', route, { dateFrom: NEXT_DAY, dateTo: DAY_AFTER, cursor }), /cursor/);
    });

    it('answers 400 for a searches cursor sent to feedback', async () => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', 'searches');

      await expectBadRequest(await call(sandbox, 'proj_medium', 'feedback', { ...ONE_DAY, cursor }), /cursor/);
    });

    it.each(CURSOR_ROUTES)('%s keeps its cursors valid in a restarted sandbox with the same seed', async (route) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);
      const restarted = await startSandbox();
      try {
        const there = await getBody(restarted, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor });
        const here = await getBody(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor });
        expect(there).toEqual(here);
      } finally {
        await restarted.close();
      }
    });

    it.each(CURSOR_ROUTES)('%s answers an empty last page for a cursor past the end', async (route, key) => {
      const { pages } = await walkCursor(sandbox, 'proj_synth_10', route, { ...ONE_DAY, limit: 5 });
      sandbox.addFault({ kind: 'endless-cursor' });
      const beyond = await getBody(sandbox, 'proj_synth_10', route, { ...ONE_DAY, limit: 5, cursor: String(pages.at(-2)?.nextCursor) });

      const after = await getBody(sandbox, 'proj_synth_10', route, { ...ONE_DAY, limit: 5, cursor: String(beyond.nextCursor) });

      expect(after[key]).toEqual([]);
      expect(after.nextCursor).toBeNull();
    });
  });

  describe('cursor faults', () => {
    it.each(CURSOR_ROUTES)('%s repeat-cursor answers the request’s own cursor as nextCursor', async (route, key) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);
      sandbox.addFault({ kind: 'repeat-cursor', route });

      const page = await getBody(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor });

      expect(page.nextCursor).toBe(cursor);
      expect(page[key]).toHaveLength(5);
      expect(sandbox.requests.at(-1)).toMatchObject({ route, fault: 'repeat-cursor' });
    });

    it.each(CURSOR_ROUTES)('%s repeat-cursor leaves the first page (no cursor) alone and waits for a cursor', async (route) => {
      sandbox.addFault({ kind: 'repeat-cursor', route });

      const first = await getBody(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5 });
      const second = await getBody(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor: String(first.nextCursor) });

      expect(first.nextCursor).not.toBeNull();
      expect(second.nextCursor).toBe(first.nextCursor);
    });

    it.each(CURSOR_ROUTES)('%s invalid-cursor answers 400 once for a valid cursor', async (route) => {
      const cursor = await secondPageCursor(sandbox, 'proj_medium', route);
      sandbox.addFault({ kind: 'invalid-cursor' });

      const refused = await call(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor });
      const retried = await call(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5, cursor });

      await expectBadRequest(refused, /cursor/);
      expect(retried.status).toBe(200);
    });

    it.each(CURSOR_ROUTES)('%s empty-page-cursor serves an empty page with a new valid cursor and loses no row', async (route, key) => {
      sandbox.addFault({ kind: 'empty-page-cursor', hasCursor: true });

      const { rows, pages } = await walkCursor(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 40 });

      const emptyIndex = pages.findIndex((page) => (page[key] as unknown[]).length === 0);
      expect(emptyIndex).toBe(1);
      expect(pages[emptyIndex]?.nextCursor).toEqual(expect.any(String));
      expect(pages[emptyIndex]?.nextCursor).not.toBe(pages[0]?.nextCursor);
      if (route !== 'searches') expect(pages[emptyIndex]?.hasMore).toBe(true);
      expect(rows).toEqual(sandbox.data.rows(route, 'proj_medium', DAY));
    });

    it.each(CURSOR_ROUTES)('%s endless-cursor hands out a fresh cursor on every page and never ends', async (route) => {
      sandbox.addFault({ kind: 'endless-cursor', route, times: Infinity });

      const cursors: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 12; i++) {
        const page = await getBody(sandbox, 'proj_synth_10', route, { ...ONE_DAY, limit: 5, ...(cursor ? { cursor } : {}) });
        cursor = page.nextCursor as string;
        if (route !== 'searches') expect(page.hasMore).toBe(true);
        cursors.push(cursor);
      }

      expect(cursors.every((value) => typeof value === 'string')).toBe(true);
      expect(new Set(cursors).size).toBe(cursors.length);
    });

    it.each([
      ['feedback', 'feedback'],
      ['assistant', 'conversations'],
    ] as const)('%s empty-page-has-more answers no rows, nextCursor null and hasMore true', async (route, key) => {
      sandbox.addFault({ kind: 'empty-page-has-more' });

      const page = await getBody(sandbox, 'proj_medium', route, ONE_DAY);

      expect(page).toEqual({ [key]: [], nextCursor: null, hasMore: true });
    });

    it('only hits later pages when the rule says hasCursor: true', async () => {
      sandbox.addFault({ kind: 'server-error', route: 'assistant', hasCursor: true });

      const first = await call(sandbox, 'proj_medium', 'assistant', { ...ONE_DAY, limit: 5 });
      const cursor = ((await first.json()) as Json).nextCursor as string;
      const second = await call(sandbox, 'proj_medium', 'assistant', { ...ONE_DAY, limit: 5, cursor });

      expect([first.status, second.status]).toEqual([200, 500]);
    });

    it('arms cursor faults over the control API', async () => {
      const posted = await fetch(`${sandbox.url}/_sandbox/faults`, {
        method: 'POST',
        body: JSON.stringify({ kind: 'endless-cursor', route: 'searches', times: 'Infinity' }),
      });

      expect(posted.status).toBe(201);
      expect(await posted.json()).toEqual({ faults: [expect.objectContaining({ kind: 'endless-cursor', route: 'searches', times: null })] });
    });
  });

  describe('generic faults on the new routes', () => {
    it.each(ROUTES)('%s answers 429 with Retry-After for a rate-limit rule that has one', async (route) => {
      sandbox.addFault({ kind: 'rate-limit', route, retryAfter: 7 });

      const response = await call(sandbox, 'proj_small', route, ONE_DAY);

      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(await response.json()).toEqual({ error: expect.any(String) });
      expect(sandbox.requests.at(-1)).toMatchObject({ route, status: 429, fault: 'rate-limit' });
    });

    it.each(ROUTES)('%s answers 429 without Retry-After for a rate-limit rule without one', async (route) => {
      sandbox.addFault({ kind: 'rate-limit', route });

      const response = await call(sandbox, 'proj_small', route, ONE_DAY);

      expect(response.status).toBe(429);
      expect(response.headers.has('retry-after')).toBe(false);
    });

    it.each(ROUTES)('%s answers a server error with the documented {error, details} body', async (route) => {
      sandbox.addFault({ kind: 'server-error', route, status: 503 });

      const response = await call(sandbox, 'proj_small', route, ONE_DAY);

      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: expect.any(String), details: [{ message: expect.any(String) }] });
    });

    it.each(ROUTES)('%s answers 200 with truncated JSON for malformed-json', async (route) => {
      sandbox.addFault({ kind: 'malformed-json', route });

      const response = await call(sandbox, 'proj_small', route, ONE_DAY);

      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text.length).toBeGreaterThan(0);
      expect(() => JSON.parse(text) as unknown).toThrow();
    });

    it.each(ROUTES)('%s drops the connection for drop', async (route) => {
      sandbox.addFault({ kind: 'drop', route });

      await expect(call(sandbox, 'proj_small', route, ONE_DAY)).rejects.toThrow();
      expect(sandbox.requests.at(-1)).toMatchObject({ route, status: 0, fault: 'drop' });
    });

    it.each([
      ['views', (body: Json) => typeof (body.totals as Json).human === 'string'],
      ['searches', (body: Json) => typeof body.totalSearches === 'string' && typeof (body.searches as Json[])[0]?.hits === 'string'],
      ['feedback', (body: Json) => (body.feedback as Json[]).at(-1)?.status === null && typeof (body.feedback as Json[])[0]?.createdAt === 'number'],
      ['feedback-by-page', (body: Json) => typeof (body.feedback as Json[])[0]?.thumbsUp === 'string'],
      ['assistant', (body: Json) => typeof (body.conversations as Json[])[0]?.timestamp === 'number'],
      ['caller-stats', (body: Json) => typeof body.web === 'string' && (body.total as number) < 0],
    ] as const)('%s answers 200 with wrong types for wrong-types', async (route, broken) => {
      sandbox.addFault({ kind: 'wrong-types', route });

      const faulted = await getBody(sandbox, 'proj_medium', route, ONE_DAY);
      const normal = await getBody(sandbox, 'proj_medium', route, ONE_DAY);

      expect(broken(faulted)).toBe(true);
      expect(broken(normal)).toBe(false);
    });

    it.each(['views', 'searches', 'feedback', 'assistant'] as const)('%s repeat-page serves the previous page of the route again', async (route) => {
      const first = await getBody(sandbox, 'proj_medium', route, { ...ONE_DAY, limit: 5 });
      sandbox.addFault({ kind: 'repeat-page', route });

      const second = await getBody(sandbox, 'proj_medium', route, {
        ...ONE_DAY,
        limit: 5,
        ...(route === 'views' ? { offset: 5 } : { cursor: String(first.nextCursor) }),
      });

      expect(second).toEqual(first);
    });

    it('views totals-change changes the totals of one page', async () => {
      sandbox.addFault({ kind: 'totals-change', route: 'views', offset: 250 });

      const first = await getBody(sandbox, 'proj_medium', 'views', { ...ONE_DAY, limit: 250 });
      const second = await getBody(sandbox, 'proj_medium', 'views', { ...ONE_DAY, limit: 250, offset: 250 });

      expect(second.totals).not.toEqual(first.totals);
    });

    it('views duplicate-paths repeats a path of the previous page', async () => {
      sandbox.addFault({ kind: 'duplicate-paths', route: 'views', offset: 250 });

      const first = await getBody<{ views: { path: string }[] }>(sandbox, 'proj_medium', 'views', { ...ONE_DAY, limit: 250 });
      const second = await getBody<{ views: { path: string }[] }>(sandbox, 'proj_medium', 'views', { ...ONE_DAY, limit: 250, offset: 250 });

      const earlier = new Set(first.views.map((row) => row.path));
      expect(second.views.filter((row) => earlier.has(row.path))).toHaveLength(1);
    });

    it('hits only the route a rule names', async () => {
      sandbox.addFault({ kind: 'server-error', route: 'feedback-by-page' });

      const feedback = await call(sandbox, 'proj_small', 'feedback', ONE_DAY);
      const byPage = await call(sandbox, 'proj_small', 'feedback-by-page', ONE_DAY);

      expect([feedback.status, byPage.status]).toEqual([200, 500]);
    });

    it('skips a route where a kind means nothing (totals-change on searches)', async () => {
      sandbox.addFault({ kind: 'totals-change' });

      const searches = await call(sandbox, 'proj_small', 'searches', ONE_DAY);

      expect(searches.status).toBe(200);
      expect(sandbox.requests.at(-1)?.fault).toBeUndefined();
    });
  });
});
