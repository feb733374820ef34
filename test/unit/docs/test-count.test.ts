/**
 * docs/tests.md's count of the suite is generated (scripts/test-count.ts) and stays current: a
 * test added or removed without `npm run docs` fails here, and the count reads tests as written.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { testCounts, testsWritten, withTestCount } from '../../../scripts/test-count.js';

describe("docs/tests.md's test count", () => {
  it('is the one generated from the test files (run `npm run docs` after adding or removing a test)', async () => {
    const doc = await readFile(new URL('../../../docs/tests.md', import.meta.url), 'utf8');

    expect(withTestCount(doc) === doc, 'docs/tests.md is stale: run `npm run docs`').toBe(true);
    expect(doc).not.toMatch(/about [\d,]+ tests/);
  });

  it('counts every project, this file among the unit tests', () => {
    const counts = testCounts();

    expect(counts.map((row) => row.name)).toEqual(['unit', 'integration', 'infra', 'types']);
    for (const row of counts) expect(row.tests, row.name).toBeGreaterThan(0);
  });

  it('counts each it/test call once, it.each once, and nothing that only looks like one', () => {
    const text = [
      "describe('a', () => {",
      "  it('one', () => {});",
      "  test.skip('two', () => {});",
      "  it.each([1, 2, 3])('three %i', () => {});",
      "  it.concurrent('four', async () => {});",
      '  const fit = (x: string) => x;',
      "  fit('not a test'); items.test('neither');",
      '});',
    ].join('\n');

    expect(testsWritten(text)).toBe(4);
  });
});
