/**
 * docs/cli.md's flag tables are the ones `npm run docs` generates from the commander program
 * (functions/cli/program.ts): a flag is written once, where the command registers it.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLI_MARKERS, cliReference, withCliReference } from '../../../scripts/cli-reference.js';

describe('the flag tables of docs/cli.md', () => {
  it('are the ones generated from the commander program (run `npm run docs` after changing a flag)', async () => {
    const doc = await readFile(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

    expect(doc.includes(CLI_MARKERS.begin) && doc.includes(CLI_MARKERS.end), 'docs/cli.md keeps its markers').toBe(true);
    expect(withCliReference(doc) === doc, 'docs/cli.md is stale: run `npm run docs`').toBe(true);
  });

  it('list every flag status takes, with its default and choices where commander has them', () => {
    const reference = cliReference();
    const status = reference.slice(reference.indexOf('### `status`')).split('\n### ')[0] as string;
    const sandbox = reference.slice(reference.indexOf('### `sandbox`')).split('\n### ')[0] as string;

    expect([...status.matchAll(/^\| `(--[a-z-]+)/gm)].map((m) => m[1])).toEqual([
      '--date',
      '--from',
      '--to',
      '--project',
      '--dataset',
      '--out',
      '--json',
      '--days',
      '--org',
      '--concurrency',
    ]);
    expect(sandbox).toContain('| `--window <kind>` | how the budget window moves (one of `fixed`, `rolling`) | `rolling` |');
  });
});
