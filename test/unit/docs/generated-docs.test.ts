/**
 * What the manual shows that the code defines: the column reference of docs/warehouse.md is
 * the one `npm run docs` generates from functions/warehouse/tables.ts, and every DuckDB query the
 * project shows reads Parquet with `union_by_name = true` (columns are only ever appended:
 * older files lack the newer columns).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BEGIN_MARKER, END_MARKER, columnReference, withColumnReference } from '../../../scripts/column-reference.js';
import { TABLES } from '../../../functions/warehouse/tables.js';
import { CONTEXT_KEYS, STACK_OUTPUTS } from '../../../infra/stack.js';
import { contextReference, outputsReference, withDeployReference } from '../../../scripts/deploy-reference.js';
import { headerSentence, sourceFiles, withCodeMap } from '../../../scripts/code-map.js';

const read = (relative: string) => readFile(new URL(`../../../${relative}`, import.meta.url), 'utf8');

describe('the column reference of docs/warehouse.md', () => {
  it('is the one generated from tables.ts (run `npm run docs` after changing a table)', async () => {
    const doc = await read('docs/warehouse.md');

    expect(doc.includes(BEGIN_MARKER) && doc.includes(END_MARKER), 'docs/warehouse.md keeps its markers').toBe(true);
    expect(withColumnReference(doc) === doc, 'docs/warehouse.md is stale: run `npm run docs`').toBe(true);
  });

  it('names every column of every table, with its type, in order', () => {
    const reference = columnReference();

    for (const table of TABLES) {
      const section = reference.slice(reference.indexOf(`### \`${table.name}\``)).split('\n### ')[0] as string;
      const names = [...section.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((match) => match[1]);
      expect(names, table.name).toEqual(table.columns.map((column) => column.name));
    }
  });

  it('is replaced, not appended to, when regenerated', () => {
    const stale = `intro\n${BEGIN_MARKER}\nold text\n${END_MARKER}\noutro\n`;

    const fresh = withColumnReference(stale);

    expect(fresh).not.toContain('old text');
    expect(withColumnReference(fresh)).toBe(fresh);
    expect(fresh.startsWith('intro\n') && fresh.endsWith(`${END_MARKER}\noutro\n`)).toBe(true);
  });
});

describe('the context options and stack outputs of docs/deploy.md', () => {
  it('are the tables generated from infra/stack.ts and infra/context-options.ts (run `npm run docs` after changing either)', async () => {
    const doc = await read('docs/deploy.md');

    expect(withDeployReference(doc) === doc, 'docs/deploy.md is stale: run `npm run docs`').toBe(true);
  });

  it('list every context option the stack reads, with what its validators accept', () => {
    const table = contextReference();
    const options = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);

    expect(options.sort()).toEqual([...CONTEXT_KEYS, 'stackName'].sort());
    expect(table).toMatch(/^\| `settleHours` \|.*\| a whole number; between 0 and 72 \|/m);
    expect(table).toMatch(/^\| `budget` \|.*\| a budget such as 90\/1h or 30\/30m \|/m);
  });

  it('list every stack output with its description', () => {
    const table = outputsReference();

    for (const [id, description] of Object.entries(STACK_OUTPUTS))
      expect(table).toContain(`| \`${id}\` | ${description.replaceAll('<', '&lt;').replaceAll('>', '&gt;')} |`);
  });
});

describe('DuckDB queries the project shows', () => {
  it.each(['README.md', 'docs/warehouse.md', 'docs/operations.md', 'docs/sandbox.md', 'docs/cli.md', 'docs/report.md', 'scripts/first-look.ts'])(
    '%s reads every Parquet glob with union_by_name = true',
    async (file) => {
      const text = await read(file).catch(() => '');
      const calls = [...text.matchAll(/read_parquet\([^\n`]*/g)].map((match) => match[0]);

      expect(calls.filter((call) => !call.includes('union_by_name = true'))).toEqual([]);
    },
  );
});

describe('the code map of docs/code-map.md', () => {
  it('is the one generated from the source files (run `npm run docs` after adding, moving or re-describing a file)', async () => {
    const doc = await read('docs/code-map.md');

    expect(withCodeMap(doc) === doc, 'docs/code-map.md is stale: run `npm run docs`').toBe(true);
  });

  it('shows a header sentence for every source file', () => {
    const bare = sourceFiles().filter((file) => headerSentence(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')) === undefined);

    expect(bare, 'each file opens with a comment saying what it is').toEqual([]);
  });

  it('takes the first sentence of a block or line comment, after a shebang', () => {
    expect(headerSentence('/**\n * `gaps`: ranked gaps. More here.\n */\ncode')).toBe('`gaps`: ranked gaps');
    expect(headerSentence('#!/usr/bin/env node\n// Runs the CLI (bin/bundle.js) from its cache.\n// Second line.\n')).toBe(
      'Runs the CLI (bin/bundle.js) from its cache',
    );
    expect(headerSentence("import x from 'y';\n/** Late. */")).toBeUndefined();
  });
});
