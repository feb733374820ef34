/**
 * Tables read once (issue 57, `gaps`' memory): `findGaps` reads each gap table with one question,
 * so its session holds them as views over the files (no copy in memory) on one DuckDB thread,
 * and finds the same evidence as a session with copies; `effects`, which reads them many times,
 * keeps copies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceOf, openGapTables } from '../../../functions/gaps/read.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { localLake } from '../../../functions/warehouse/lake.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { FLAT_DAY, writeLake } from '../../helpers/insights-lake.js';

const DAYS = ['2026-11-20', '2026-11-21'];
let root: string;

beforeAll(async () => {
  root = await makeTempDir('read-once');
  await writeLake(
    createLocalDestination(root),
    DAYS.map((day) => ({ projectId: 'proj_a', day, figures: FLAT_DAY })),
    (day) => Date.parse(`${day}T03:00:00Z`),
  );
}, 60_000);

afterAll(removeTempDirs);

/** The gap tables of a session as DuckDB holds them: `view` or `table`. */
async function kinds(tables: Awaited<ReturnType<typeof openGapTables>>): Promise<Record<string, string>> {
  const { session } = tables.warehouse;
  const views = await session.query('SELECT view_name AS name FROM duckdb_views() WHERE NOT internal');
  const copies = await session.query('SELECT table_name AS name FROM duckdb_tables()');
  return Object.fromEntries([...views.map((r) => [String(r['name']), 'view']), ...copies.map((r) => [String(r['name']), 'table'])]);
}

describe('gap tables read once', () => {
  it('are views on one thread for findGaps, copies for effects, and give the same evidence', async () => {
    const scope = { days: DAYS, projects: [] };
    const once = await openGapTables(localLake(root), scope, true);
    const copied = await openGapTables(localLake(root), scope);
    try {
      expect(await kinds(once)).toEqual({ assistant_conversations: 'view', feedback: 'view', searches: 'view' });
      expect(await kinds(copied)).toEqual({ assistant_conversations: 'table', feedback: 'table', searches: 'view' });
      expect(await once.warehouse.session.query("SELECT current_setting('threads') AS threads")).toEqual([{ threads: 1 }]);

      const found = await evidenceOf(once);
      expect(found.some((f) => f.evidence.kind === 'unanswered_topic')).toBe(true);
      expect(found.some((f) => f.evidence.kind === 'thumbs_down_page')).toBe(true);
      expect(found).toEqual(await evidenceOf(copied));
    } finally {
      once.close();
      copied.close();
    }
  });
});
