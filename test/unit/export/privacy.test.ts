import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../../functions/export/datasets.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { parsePolicyOverrides, resolvePolicy } from '../../../functions/warehouse/column-policy.js';

const KEY = 'unit-test-personal-data-key-0123';
const privacy = { policy: resolvePolicy({}), key: KEY, keyId: keyIdOf(KEY), erased: new Set<string>() };

describe("a dataset's reader applies the personal-data policy", () => {
  it('reaches every governed column of every dataset: each has the API field it comes from', () => {
    for (const def of Object.values(DATASETS)) {
      const governed = def.table.columns.filter((column) => column.policy !== undefined && column.name !== 'unknown_fields').map((column) => column.name);
      expect(Object.keys(def.personalFields ?? {}).sort(), def.name).toEqual(governed.sort());
    }
  });

  it('hashes the contact, masks the free text and the unknown fields, and keeps the rest of a feedback page', () => {
    const page = {
      feedback: [
        {
          id: 'f1',
          path: '/docs/[email]',
          comment: 'mail ana@example.com',
          createdAt: null,
          source: 'contextual',
          status: 'pending',
          helpful: true,
          contact: ' Ana@Example.com ',
          code: null,
          filename: null,
          lang: null,
          mood: 'call +1 555 010 9999',
        },
      ],
      nextCursor: null,
      hasMore: false,
      debug: { echo: 'ana@example.com' },
    };

    const read = DATASETS.feedback.read(page, { context: { projectId: 'p', date: '2026-02-10', exportedAt: new Date(0) }, privacy });
    const governed = read.body as typeof page;

    expect(governed.feedback[0]).toMatchObject({
      path: '/docs/[email]',
      comment: 'mail [email]',
      contact: hmacOf(KEY, 'ana@example.com'),
      mood: 'call [phone]',
    });
    expect(governed.debug).toEqual({ echo: '[email]' });
  });
});

describe("a dataset's reader: each page read once", () => {
  const context = { projectId: 'p', date: '2026-02-10', exportedAt: new Date(0) };
  const body = () => ({
    feedback: [
      {
        id: 'f1',
        path: '/a',
        comment: 'mail ana@example.com',
        createdAt: null,
        source: 'contextual',
        status: 'pending',
        helpful: true,
        contact: 'ana@example.com',
        code: null,
        filename: null,
        lang: null,
        mood: 'call +1 555 010 9999',
      },
    ],
    nextCursor: 'c2',
    hasMore: true,
    debug: 1,
  });

  it('gives the view, the governed rows with their unknown fields, and the drift of one page', () => {
    const read = DATASETS.feedback.read(body(), { context, privacy });

    expect(read.view).toMatchObject({ rowCount: 1, hasMore: true, nextCursor: 'c2' });
    expect(read.rows).toEqual([
      expect.objectContaining({
        feedback_id: 'f1',
        comment: 'mail [email]',
        contact: hmacOf(KEY, 'ana@example.com'),
        unknown_fields: '{"mood":"call [phone]"}',
      }),
    ]);
    expect(read.drift).toEqual({ topLevelFields: ['debug'], rowFields: ['mood'], totalsUnknown: undefined });
  });

  it('replays a staged page as it was staged: the policy is not applied a second time', () => {
    const staged = JSON.parse(JSON.stringify(DATASETS.feedback.read(body(), { context, privacy }).body));

    const replayed = DATASETS.feedback.replay(staged, { context, privacy });

    expect(replayed.rows[0]).toMatchObject({ contact: hmacOf(KEY, 'ana@example.com'), comment: 'mail [email]' });
  });

  it("leaves out a forgotten person's rows, and their drift", () => {
    const erased = new Set([hmacOf(KEY, 'ana@example.com')]);

    const read = DATASETS.feedback.read(body(), { context, privacy: { ...privacy, erased } });

    expect(read.rows).toEqual([]);
    expect(read.drift.rowFields).toEqual([]);
  });
});

describe('the path policy, in the reader', () => {
  const scope = (p: typeof privacy) => ({ context: { projectId: 'p', date: '2026-02-10', exportedAt: new Date(0) }, privacy: p });
  const row = (path: string) => ({ path, human: 1, ai: 0, total: 1 });

  it('cleans every path and URL column by default: query string and fragment gone, a segment holding an address masked', () => {
    const visitors = {
      visitors: [row('/profile/oscar@example.com'), row('/signup?email=mallory@example.com#top'), row('/docs/quickstart')],
      totals: { human: 3, ai: 0, total: 3 },
      hasMore: false,
    };
    const read = DATASETS.visitors.read(visitors, scope(privacy));
    expect((read.body as typeof visitors).visitors.map((r) => r.path)).toEqual(['/profile/[email]', '/signup', '/docs/quickstart']);

    const assistant = {
      conversations: [
        {
          id: 'c1',
          timestamp: '2026-02-10T10:00:00.000Z',
          query: 'q',
          response: 'r',
          resolutionStatus: 'answered',
          pageUrl: 'https://docs.acme.com/u/+44 20 7946 0958?token=sk_live_abcdefghijklmnopqrstu',
        },
      ],
      hasMore: false,
      nextCursor: null,
    };
    const governed = DATASETS.assistant.read(assistant, scope(privacy)).body as { conversations: { pageUrl: string }[] };
    expect(governed.conversations[0]?.pageUrl).toBe('https://docs.acme.com/u/[phone]');
  });

  it('keeps two paths its cleaning made alike apart for the paging duplicate check, without keeping either as sent', () => {
    const page = {
      visitors: [row('/signup?email=ana@example.com'), row('/signup?email=bob@example.com'), row('/docs')],
      totals: { human: 3, ai: 0, total: 3 },
      hasMore: false,
    };
    const read = DATASETS.visitors.read(page, scope(privacy));
    const keys = [...(read.view.rowKeys?.() ?? [])];
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe('/docs');
    expect(JSON.stringify(keys)).not.toMatch(/example|signup\?/);
    expect(JSON.stringify(read.body)).not.toContain('example.com');
  });

  it('takes keep for a path column (PERSONAL_DATA_POLICY=visitors.path=keep)', () => {
    const keep = { ...privacy, policy: resolvePolicy(parsePolicyOverrides('visitors.path=keep', 'PERSONAL_DATA_POLICY')) };
    const page = { visitors: [{ path: '/signup?x=1', human: 1, ai: 0, total: 1 }], totals: { human: 1, ai: 0, total: 1 }, hasMore: false };
    const read = DATASETS.visitors.read(page, scope(keep));
    expect((read.body as typeof page).visitors[0]?.path).toBe('/signup?x=1');
  });
});
