import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../../functions/export/datasets.js';
import { governPage } from '../../../functions/export/privacy.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data.js';
import { resolvePolicy } from '../../../functions/warehouse/column-policy.js';

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
      path: '/docs/a@b.example',
      comment: 'mail [email]',
      contact: hmacOf(KEY, 'ana@example.com'),
      mood: 'call [phone]',
    });
    expect(page.debug).toEqual({ echo: '[email]' });
  });
});
