/**
 * `DuckDbSession.each` and `eachColumns` (issue 57): a question's rows handed over a chunk at a time — every row
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

  it('by column: every value once, in order, one list per column, counts as numbers', async () => {
    const session = await openDuckDb();
    try {
      const [chunks, seen, questions]: [number[], unknown[], unknown[]] = [[], [], []];

      await session.eachColumns("SELECT range AS n, printf('q%d', range) AS question FROM range(5000) ORDER BY range", (columns, rows) => {
        chunks.push(rows);
        expect(columns['n']).toHaveLength(rows);
        seen.push(...(columns['n'] ?? []));
        questions.push(...(columns['question'] ?? []));
      });

      expect(chunks.length).toBeGreaterThan(1);
      expect(seen).toEqual(Array.from({ length: 5000 }, (_, i) => i));
      expect(questions[4999]).toBe('q4999');
      await session.eachColumns("SELECT 3::BIGINT AS total, 'x' AS question, NULL AS nothing", (columns, rows) =>
        expect([columns, rows]).toEqual([{ total: [3], question: ['x'], nothing: [null] }, 1]),
      );
    } finally {
      session.close();
    }
  });
});
