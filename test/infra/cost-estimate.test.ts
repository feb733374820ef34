/**
 * The cost estimate of docs/deploy.md is the one scripts/cost-estimate.ts makes from the
 * synthesized stack (a stale table fails here until `npm run docs`), and its arithmetic holds:
 * every cell is its quantities times the prices the page states, and each total the sum of its
 * column.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { costOf, costTable, linesOf, PRICES, runsPerMonth, SIZES, stackFacts, withCostEstimate, type StackFacts } from '../../scripts/cost-estimate.js';

let stack: StackFacts;
beforeAll(() => {
  stack = stackFacts();
});

/** The cells of a row of the table, the first two (service, what) dropped. */
const cellsOf = (row: string) =>
  row
    .split(' | ')
    .slice(2)
    .map((c) => c.replace(/\s*\|\s*$/, '').replace(/\*/g, ''));
const dollars = (text: string) => (text === '< $0.01' ? 0 : Number(text.replace('$', '')));

describe('the cost estimate of docs/deploy.md', () => {
  it('is the one generated from the stack (run `npm run docs` after changing either)', async () => {
    const doc = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

    expect(withCostEstimate(doc, stack) === doc, 'docs/deploy.md is stale: run `npm run docs`').toBe(true);
  });

  it("reads the stack's schedules: the export and the insights hourly, the report weekly", () => {
    expect(runsPerMonth('cron(5 * * * ? *)')).toBeCloseTo(24 * 30.4, 6);
    expect(runsPerMonth('cron(0 6 ? * MON *)')).toBeCloseTo(30.4 / 7, 6);
    expect(runsPerMonth('rate(1 hour)')).toBeCloseTo(24 * 30.4, 6);
    expect(stack.scheduled.map((s) => Math.round(s.runsPerMonth))).toEqual([730, 730, 4]);
    expect(stack.alarms).toBeGreaterThan(0);
  });

  it("adds up: each cell is its line's quantities times the unit prices, each total the sum of its column", () => {
    const table = costTable(stack).split('\n');
    const rows = table.filter((row) => row.startsWith('| ') && !row.startsWith('| service') && !row.startsWith('| **total'));
    const totals = cellsOf(table.find((row) => row.startsWith('| **total')) as string).map(dollars);

    SIZES.forEach((size, column) => {
      const lines = linesOf(stack, size);
      expect(rows).toHaveLength(lines.length);
      lines.forEach((line, i) => {
        const shown = dollars(cellsOf(rows[i] as string)[column] as string);
        const computed = Object.entries(line.quantities).reduce((sum, [name, q]) => sum + (q ?? 0) * PRICES[name as keyof typeof PRICES].usd, 0);
        // Shown to the cent: within half a cent of the product.
        expect(Math.abs(shown - computed), `${size.name}: ${line.service} ${line.what}`).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(costOf(line)).toBeCloseTo(computed, 10);
      });
      const sum = lines.reduce((s, line) => s + costOf(line), 0);
      expect(Math.abs((totals[column] as number) - sum)).toBeLessThanOrEqual(0.005 + 1e-9);
    });
    // Larger sites cost more, never less.
    expect(totals[0]).toBeLessThan(totals[1] as number);
    expect(totals[1]).toBeLessThan(totals[2] as number);
  });
});
