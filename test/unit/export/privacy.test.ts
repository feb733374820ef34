import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../../functions/export/datasets.js';
import { governPage } from '../../../functions/export/privacy.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data.js';
import { parsePolicyOverrides, resolvePolicy } from '../../../functions/warehouse/column-policy.js';

const KEY = 'unit-test-personal-data-key-0123';
const privacy = { policy: resolvePolicy({}), key: KEY, keyId: keyIdOf(KEY), erased: new Set<string>() };

describe('governPage', () => {
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

    governPage(DATASETS.feedback, page, privacy);

    expect(page.feedback[0]).toMatchObject({
      path: '/docs/[email]',
      comment: 'mail [email]',
      contact: hmacOf(KEY, 'ana@example.com'),
      mood: 'call [phone]',
    });
    expect(page.debug).toEqual({ echo: '[email]' });
  });

  it('cleans every path and URL column by default: query string and fragment gone, a segment holding an address masked', () => {
    const row = (path: string) => ({ path, human: 1, ai: 0, total: 1 });
    const visitors = {
      visitors: [row('/profile/oscar@example.com'), row('/signup?email=mallory@example.com#top'), row('/docs/quickstart')],
      totals: { human: 3, ai: 0, total: 3 },
      hasMore: false,
    };
    governPage(DATASETS.visitors, visitors, privacy);
    expect(visitors.visitors.map((r) => r.path)).toEqual(['/profile/[email]', '/signup', '/docs/quickstart']);

    const assistant = { conversations: [{ pageUrl: 'https://docs.acme.com/u/+44 20 7946 0958?token=sk_live_abcdefghijklmnopqrstu' }] };
    governPage(DATASETS.assistant, assistant, privacy);
    expect(assistant.conversations[0]?.pageUrl).toBe('https://docs.acme.com/u/[phone]');
  });

  it('keeps two paths its cleaning made alike apart for the paging duplicate check, without keeping either as sent', () => {
    const row = (path: string) => ({ path, human: 1, ai: 0, total: 1 });
    const page = {
      visitors: [row('/signup?email=ana@example.com'), row('/signup?email=bob@example.com'), row('/docs')],
      totals: { human: 3, ai: 0, total: 3 },
      hasMore: false,
    };
    governPage(DATASETS.visitors, page, privacy);
    const keys = [...(DATASETS.visitors.view(page).rowKeys?.() ?? [])];
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe('/docs');
    expect(JSON.stringify(keys)).not.toMatch(/example|signup\?/);
    expect(JSON.stringify(page)).not.toContain('example.com');
  });

  it('takes keep for a path column (PERSONAL_DATA_POLICY=visitors.path=keep)', () => {
    const keep = { ...privacy, policy: resolvePolicy(parsePolicyOverrides('visitors.path=keep', 'PERSONAL_DATA_POLICY')) };
    const page = { visitors: [{ path: '/signup?x=1', human: 1, ai: 0, total: 1 }], totals: { human: 1, ai: 0, total: 1 }, hasMore: false };
    governPage(DATASETS.visitors, page, keep);
    expect(page.visitors[0]?.path).toBe('/signup?x=1');
  });
});
