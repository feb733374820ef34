/**
 * `DuckDbSession.each` (issue 57): a question's rows handed over a chunk at a time — every row
 * once, in the statement's order, BIGINT as number — so that gaps reads a day of 200,000
 * distinct questions without holding them as rows.
 */
import { describe, expect, it } from 'vitest';
import { openDuckDb } from '../../../functions/warehouse/duckdb.js';

describe('rows a chunk at a time', () => {
  it('hands every row once, in order, in chunks smaller than the answer, counts as numbers', async () => {
    const session = await openDuckDb();
    try {
      const chunks: number[] = [];
      const seen: unknown[] = [];

      await session.each("SELECT range AS n, count(*) OVER () AS total, printf('q%d', range) AS question FROM range(5000) ORDER BY range", (rows) => {
        chunks.push(rows.length);
        for (const row of rows) seen.push(row['n']);
      });

      expect(chunks.length).toBeGreaterThan(1);
      expect(Math.max(...chunks)).toBeLessThan(5000);
      expect(seen).toEqual(Array.from({ length: 5000 }, (_, i) => i));
      await session.each("SELECT 3::BIGINT AS total, 'x' AS question", (rows) => expect(rows).toEqual([{ total: 3, question: 'x' }]));
    } finally {
      session.close();
    }
  });
});
