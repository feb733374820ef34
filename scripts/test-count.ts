/**
 * The test count of docs/tests.md, generated: per vitest project, its files and its tests as
 * written (each `it`/`test` call, `it.each(...)` once), read with TypeScript's parser, so the
 * page cannot drift from the suite. `npm run docs` writes it; a test fails while it is stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { blockMarkers, withBlock } from './generated-block.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export const TEST_COUNT_MARKERS = blockMarkers('test-count', 'the test files, scripts/test-count.ts');

/** The vitest projects (vitest.config.ts): their folders and file endings. */
const PROJECTS = [
  { name: 'unit', folder: 'test/unit', ending: '.test.ts' },
  { name: 'integration', folder: 'test/integration', ending: '.test.ts' },
  { name: 'infra', folder: 'test/infra', ending: '.test.ts' },
  { name: 'types', folder: 'test/types', ending: '.test-d.ts' },
] as const;

/** The callees that declare a test: `it`, `test` and their `.skip`/`.only`/`.concurrent`/`.fails`/`.todo`. */
const DECLARES = /^(it|test)(\.(skip|only|concurrent|fails|todo))?$/;

/** The counts of the texts read so far (the docs test counts the suite twice: the page, then the projects). */
const counted = new Map<string, number>();

/** The tests `text` declares as written: one per `it(…)`/`test(…)` call, one per `it.each(…)(…)`. */
export function testsWritten(text: string): number {
  const known = counted.get(text);
  if (known !== undefined) return known;
  // No parent pointers: the walk goes down only, and `getText(file)` reads the text by position.
  const file = ts.createSourceFile('count.ts', text, ts.ScriptTarget.ES2022, false);
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const eachCall = ts.isCallExpression(callee) && /^(it|test)\.each$/.test(callee.expression.getText(file));
      if (eachCall || DECLARES.test(callee.getText(file))) count += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  counted.set(text, count);
  return count;
}

/** Each project's files and tests as written. */
export function testCounts(): { readonly name: string; readonly files: number; readonly tests: number }[] {
  return PROJECTS.map(({ name, folder, ending }) => {
    const files = readdirSync(`${ROOT}${folder}`, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith(ending));
    const tests = files.reduce((sum, file) => sum + testsWritten(readFileSync(`${ROOT}${folder}/${file}`, 'utf8')), 0);
    return { name, files: files.length, tests };
  });
}

/** `doc` (docs/tests.md) with its test-count block regenerated. */
export function withTestCount(doc: string): string {
  const counts = testCounts();
  const total = (key: 'files' | 'tests') => counts.reduce((sum, row) => sum + row[key], 0);
  const number = (n: number) => n.toLocaleString('en-GB');
  const rows = counts.map(({ name, files, tests }) => `| ${name} | ${number(files)} | ${number(tests)} |`);
  const table = ['| project | files | tests as written |', '|---|--:|--:|', ...rows, `| all | ${number(total('files'))} | ${number(total('tests'))} |`];
  const note = 'Tests as written count each `it`/`test` once; `it.each` and tests declared in a loop run more, so vitest reports a larger number.';
  return withBlock(doc, TEST_COUNT_MARKERS, `${table.join('\n')}\n\n${note}`);
}
