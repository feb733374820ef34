import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../../functions/export/datasets.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data.js';
import { resolvePolicy } from '../../../functions/warehouse/column-policy.js';

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
          path: '/docs/a@b.example',
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
      path: '/docs/a@b.example',
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
