/**
 * Every DuckDB statement of docs/warehouse.md runs, as written, on the lake `npm start` leaves
 * (test/helpers/sandbox-lake.ts; `data/` is that lake's folder) with one follow-up outcome record
 * added (the sandbox run sends no prompt): none fails, and the queries over the tables a sandbox
 * export fills return rows. The other dialects' statements are parsed by their grammars
 * (test/unit/docs/warehouse-sql.test.ts).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docStatements } from '../../../scripts/warehouse-sql.js';
import { openDuckDb, type DuckDbSession } from '../../../functions/warehouse/duckdb.js';
import { removeTempDirs } from '../../helpers/files.js';
import { buildSandboxLake } from '../../helpers/sandbox-lake.js';

let lake: string;
let db: DuckDbSession;
const doc = await readFile(new URL('../../../docs/warehouse.md', import.meta.url), 'utf8');
const statements = docStatements(doc)
  // The iceberg extension is a download: its recipe ("DuckDB (Iceberg)") cannot run here.
  .filter((s) => s.dialect === 'duckdb' && !s.heading.includes('(Iceberg)'))
  .map((s) => s.sql);

beforeAll(async () => {
  lake = await buildSandboxLake();
  const outcomes = path.join(lake, 'followup_outcomes', 'dt=2026-11-20');
  await mkdir(outcomes, { recursive: true });
  await writeFile(
    path.join(outcomes, 'req_1.json'),
    `${JSON.stringify({ request_id: 'req_1', project_id: 'proj_small', job_id: 'job_1', status: 'completed', finished_at: '2026-11-20T10:00:00.000Z' })}\n`,
  );
  db = await openDuckDb();
  await db.run("SET TimeZone = 'UTC'");
}, 600_000);

afterAll(async () => {
  db?.close();
  await removeTempDirs();
});

/** The statement with the page's `data/` folder pointed at the lake. */
const onLake = (sql: string) => sql.replaceAll("'data/", `'${lake}/`);

// Each statement reads two weeks of every dataset: seconds alone, past the default 30 s when the
// machine's two cores are shared with the rest of the suite.
describe('the DuckDB statements of docs/warehouse.md on the sandbox lake', { timeout: 120_000 }, () => {
  it('are there', () => {
    expect(statements.length).toBeGreaterThanOrEqual(10);
  });

  it.each(
    statements.map(
      (sql) =>
        [
          sql
            .replace(/--[^\n]*\n/g, '')
            .trim()
            .split('\n')[0]
            ?.slice(0, 80) ?? '',
          sql,
        ] as const,
    ),
  )('runs: %s', async (_name, sql) => {
    const query = /^\s*(--[^\n]*\n\s*)*SELECT/.test(sql);
    // A query's every row and column is computed and kept in DuckDB (a table of the session), then
    // counted: handing them all to JavaScript (the join of the first is every page row of the
    // lake) took seconds and checked nothing more. Any other statement runs as written.
    if (query) await db.run(`CREATE OR REPLACE TEMP TABLE result AS ${onLake(sql).trim().replace(/;$/, '')}`);
    else await db.run(onLake(sql));
    const rows = query ? Number((await db.query('SELECT count(*) AS n FROM result'))[0]?.['n']) : 0;

    // A query of every day returns rows; only "yesterday" (the machine's, not the lake's) may be empty.
    if (query && !/current_date/.test(sql)) expect(rows, sql).toBeGreaterThan(0);
  });
});
