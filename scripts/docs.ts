/**
 * `npm run docs`: regenerates the parts of the manual that are generated from the code — the
 * column reference of docs/warehouse.md (from functions/shared/tables.ts). Run it after
 * changing a table; `npm test` fails while the file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { withColumnReference } from './column-reference.js';

const file = new URL('../docs/warehouse.md', import.meta.url);
const before = await readFile(file, 'utf8');
const after = withColumnReference(before);
if (after === before) {
  process.stdout.write('docs/warehouse.md: the column reference is up to date\n');
} else {
  await writeFile(file, after);
  process.stdout.write('docs/warehouse.md: column reference regenerated from functions/shared/tables.ts\n');
}
