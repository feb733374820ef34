/**
 * A roll-up's sums (functions/warehouse/lake/rollup-sums.ts): beside the monthly roll-up of
 * views_pages, its rows summed per project and page, written and removed with it on each path
 * that builds, rebuilds or removes it (the export's refresh, `forget`'s `rewritingDays`,
 * retention's `removeMonthRollups`, `compact`), tied to it by one build id; the top pages read
 * a month wholly inside their range from them, a month the range cuts from its rows, and a sums
 * file missing or of another build never — the answers the same with the sums and without.
 */
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTarget } from '../../../functions/shared/storage/destinations.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { openDuckDb, type DuckDbSession } from '../../../functions/warehouse/duckdb.js';
import { dropManifest, putManifest } from '../../helpers/manifests.js';
import { localLake } from '../../../functions/warehouse/lake.js';
import { dayKey, rollupKey, rollupSumsKey } from '../../../functions/warehouse/lake/layout.js';
import { BUILD_KEY } from '../../../functions/warehouse/lake/rollup-sums.js';
import { compactLake, refreshLake, removeMonthRollups, rewritingDays } from '../../../functions/warehouse/lake/rollups.js';
import { committedUnits } from '../../../functions/warehouse/lake/rollup-commits.js';
import { daysOfMonth } from '../../../functions/warehouse/lake/unit-index.js';
import { ask } from '../../../functions/warehouse/questions.js';
import { loadWarehouse } from '../../../functions/warehouse/session.js';
import { sqlString } from '../../../functions/warehouse/sql.js';
import { VIEWS_PAGES, VIEWS_TOTALS } from '../../../functions/warehouse/tables.js';
import { TYPED_QUESTIONS } from '../../../queries/questions.js';
import { withRollups } from '../../helpers/env.js';

const PROJECTS = ['proj_a', 'proj_b'] as const;
const MONTHS = ['2026-01', '2026-02'] as const;
/** Two whole months and the first days of the next (not settled as a month: no roll-up). */
const DAYS = [...daysOfMonth('2026-01'), ...daysOfMonth('2026-02'), '2026-03-01', '2026-03-02'];
/** A path only some days of proj_a have: what an erasure removes. */
const ERASED_PATH = '/erase-me';

let root: string;
let destination: Destination;
let db: DuckDbSession;

/** Writes a unit of the views dataset as the export does: its two day files (views_pages with `seed`'s numbers), then its manifest. */
async function exportDay(day: string, projectId: string, seed: number): Promise<void> {
  const files: Record<string, string> = {};
  const bytes: Record<string, number> = {};
  const rows: Record<string, number> = {};
  for (const table of [VIEWS_PAGES, VIEWS_TOTALS]) {
    const key = dayKey(table.prefix, day, `${projectId}.parquet`);
    const file = path.join(root, ...key.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    const n = 3 + (seed % 5);
    const select =
      table === VIEWS_PAGES
        ? `SELECT ${sqlString(projectId)} AS project_id, DATE ${sqlString(day)} AS date, CASE WHEN i = 0 AND ${seed % 3} = 0 THEN ${sqlString(ERASED_PATH)} ELSE '/p' || (i % 4) END AS path, ` +
          `((i * 7 + ${seed}) % 11)::BIGINT AS human, ((i + ${seed}) % 3)::BIGINT AS ai, ((i * 7 + ${seed}) % 11 + (i + ${seed}) % 3)::BIGINT AS total FROM range(${n}) t(i)`
        : `SELECT ${sqlString(projectId)} AS project_id, DATE ${sqlString(day)} AS date, ${seed}::BIGINT AS total`;
    await db.run(`COPY (${select}) TO ${sqlString(file)} (FORMAT parquet)`);
    files[table.name] = key;
    bytes[table.name] = (await stat(file)).size;
    rows[table.name] = table === VIEWS_PAGES ? n : 1;
  }
  commits += 1;
  const finishedAt = new Date(Date.UTC(2026, 3, 1) + commits * 1000).toISOString();
  const manifest = { version: 2, dataset: 'views', projectId, date: day, finishedAt, files, bytes, rows };
  await putManifest(destination, 'views', day, projectId, manifest);
}
let commits = 0;

/** The build id in a Parquet file's metadata (undefined: none, or no file). */
async function buildOf(key: string): Promise<string | undefined> {
  if (!(await destination.exists(key))) return undefined;
  const [row] = await db.query(
    `SELECT decode(value) AS build FROM parquet_kv_metadata(${sqlString(path.join(root, key))}) WHERE decode(key) = ${sqlString(BUILD_KEY)}`,
  );
  return row === undefined ? undefined : String(row['build']);
}

/** The month's sums as stored, sorted. */
async function storedSums(month: string): Promise<string[]> {
  const rows = await db.query(
    `SELECT project_id, path, total, human, ai FROM read_parquet(${sqlString(path.join(root, rollupSumsKey(VIEWS_PAGES.prefix, month)))}) ORDER BY ALL`,
  );
  return rows.map((row) => JSON.stringify(row));
}

/** The month's rows of the day files summed per project and page, sorted: what its sums must hold. */
async function daySums(month: string): Promise<string[]> {
  const files = DAYS.filter((day) => day.startsWith(month)).flatMap((day) =>
    PROJECTS.map((projectId) => path.join(root, dayKey(VIEWS_PAGES.prefix, day, `${projectId}.parquet`))),
  );
  const rows = await db.query(
    `SELECT project_id, path, sum(total)::BIGINT AS total, sum(human)::BIGINT AS human, sum(ai)::BIGINT AS ai FROM read_parquet(${`[${files.map(sqlString).join(', ')}]`}) GROUP BY ALL ORDER BY ALL`,
  );
  return rows.map((row) => JSON.stringify(row));
}

/** The top pages over `[from, to)` as the report asks them (every row), with the roll-ups or from the days only; and whether sums were read. */
async function topPages(from: string, to: string, rollups = true, days: readonly string[] = DAYS): Promise<{ rows: unknown[]; sums: string[] }> {
  return withRollups(rollups, async () => {
    const warehouse = await loadWarehouse(localLake(root), { days, projects: [...PROJECTS], tables: [VIEWS_PAGES], viewsOnly: true });
    try {
      const params = { from, to, projects: [...PROJECTS], limit: 1000 };
      const relation = warehouse.tablesFor?.(TYPED_QUESTIONS.topPages.id, params)?.['views_pages'] ?? '';
      return {
        rows: await ask(warehouse, TYPED_QUESTIONS.topPages, params),
        sums: [...relation.matchAll(/month=(\d{4}-\d{2})\.sums\.parquet/g)].map((m) => m[1] as string),
      };
    } finally {
      warehouse.close();
    }
  });
}

const UNITS = DAYS.flatMap((day) => PROJECTS.map((projectId) => ({ dataset: 'views' as const, day, projectId })));

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rollup-sums-'));
  destination = openTarget({ kind: 'local', dir: root });
  db = await openDuckDb();
  for (const [i, day] of DAYS.entries()) for (const [j, projectId] of PROJECTS.entries()) await exportDay(day, projectId, i * 2 + j);
});

afterEach(async () => {
  db.close();
  await rm(root, { recursive: true, force: true });
});

describe('the sums of a roll-up, written and removed with it', () => {
  it('the export’s refresh writes each month’s sums with its roll-up, of the same build, the sums of its days', async () => {
    await refreshLake(destination, UNITS);
    for (const month of MONTHS) {
      const build = await buildOf(rollupKey(VIEWS_PAGES.prefix, month));
      expect(build).toBeDefined();
      expect(await buildOf(rollupSumsKey(VIEWS_PAGES.prefix, month))).toBe(build);
      const record = JSON.parse(Buffer.from((await destination.get(rollupKey(VIEWS_PAGES.prefix, month, 'json'))) ?? []).toString()) as { sums?: string };
      expect(record.sums).toBe(build);
      expect(await storedSums(month)).toEqual(await daySums(month));
    }
    // No sums for a table without (views_totals), none for the month begun.
    expect(await destination.exists(rollupSumsKey(VIEWS_TOTALS.prefix, '2026-01'))).toBe(false);
    expect(await destination.exists(rollupSumsKey(VIEWS_PAGES.prefix, '2026-03'))).toBe(false);
  });

  it('a day exported again: the month’s roll-up and its sums rebuilt together from the new day files', async () => {
    await refreshLake(destination, UNITS);
    const before = await buildOf(rollupSumsKey(VIEWS_PAGES.prefix, '2026-02'));
    await exportDay('2026-02-10', 'proj_b', 997);
    await refreshLake(destination, [{ dataset: 'views', day: '2026-02-10', projectId: 'proj_b' }]);
    const after = await buildOf(rollupSumsKey(VIEWS_PAGES.prefix, '2026-02'));
    expect(after).not.toBe(before);
    expect(after).toBe(await buildOf(rollupKey(VIEWS_PAGES.prefix, '2026-02')));
    expect(await storedSums('2026-02')).toEqual(await daySums('2026-02'));
  });

  it('retention removes the month’s sums with its roll-up', async () => {
    await refreshLake(destination, UNITS);
    await removeMonthRollups(destination, { dataset: 'views', day: '2026-01-05', projectId: 'proj_a' });
    expect(await destination.exists(rollupKey(VIEWS_PAGES.prefix, '2026-01'))).toBe(false);
    expect(await destination.exists(rollupSumsKey(VIEWS_PAGES.prefix, '2026-01'))).toBe(false);
    expect(await destination.exists(rollupSumsKey(VIEWS_PAGES.prefix, '2026-02'))).toBe(true);
  });

  it('forget: the sums gone before the day files are rewritten, rebuilt after, no byte of the erased rows left in them', async () => {
    await refreshLake(destination, UNITS);
    expect(await storedSums('2026-01')).toEqual(expect.arrayContaining([expect.stringContaining(ERASED_PATH)]));
    const changed = DAYS.filter((day) => day < '2026-02-01').flatMap((day) => PROJECTS.map((projectId) => ({ table: VIEWS_PAGES, day, projectId })));
    await rewritingDays(destination, changed, async () => {
      // While the day files are rewritten no roll-up of the month, nor its sums, may stand.
      expect(await destination.exists(rollupSumsKey(VIEWS_PAGES.prefix, '2026-01'))).toBe(false);
      expect(await destination.exists(rollupKey(VIEWS_PAGES.prefix, '2026-01'))).toBe(false);
      for (const { day, projectId } of changed) {
        const file = path.join(root, dayKey(VIEWS_PAGES.prefix, day, `${projectId}.parquet`));
        await db.run(
          `COPY (SELECT * FROM read_parquet(${sqlString(file)}) WHERE path <> ${sqlString(ERASED_PATH)}) TO ${sqlString(`${file}.new`)} (FORMAT parquet)`,
        );
        await copyFile(`${file}.new`, file);
        await rm(`${file}.new`);
      }
    });
    const sums = rollupSumsKey(VIEWS_PAGES.prefix, '2026-01');
    expect(await buildOf(sums)).toBe(await buildOf(rollupKey(VIEWS_PAGES.prefix, '2026-01')));
    expect(await storedSums('2026-01')).toEqual(await daySums('2026-01'));
    const rows = await db.query(`SELECT count(*) AS n FROM read_parquet(${sqlString(path.join(root, sums))}) WHERE path = ${sqlString(ERASED_PATH)}`);
    expect(Number(rows[0]?.['n'])).toBe(0);
    // Nor the erased value's bytes in the file itself (nor in the roll-up's).
    for (const key of [sums, rollupKey(VIEWS_PAGES.prefix, '2026-01')])
      expect(Buffer.from((await destination.get(key)) ?? []).includes(Buffer.from(ERASED_PATH)), key).toBe(false);
  });

  it('compact over roll-ups of an older writer (no sums): built again, with their sums', async () => {
    await refreshLake(destination, UNITS);
    for (const month of MONTHS) {
      // What a writer before the sums left: the record without `sums`, no sums file.
      const key = rollupKey(VIEWS_PAGES.prefix, month, 'json');
      const { sums: _none, ...record } = JSON.parse(Buffer.from((await destination.get(key)) ?? []).toString()) as Record<string, unknown>;
      await destination.put(key, JSON.stringify(record));
      await destination.delete(rollupSumsKey(VIEWS_PAGES.prefix, month));
    }
    const counts = await compactLake(destination, { datasets: ['views'] });
    expect(counts.built).toBe(2);
    for (const month of MONTHS) {
      expect(await buildOf(rollupSumsKey(VIEWS_PAGES.prefix, month))).toBe(await buildOf(rollupKey(VIEWS_PAGES.prefix, month)));
      expect(await storedSums(month)).toEqual(await daySums(month));
    }
    // Run again, nothing to do: kept.
    expect((await compactLake(destination, { datasets: ['views'] })).built).toBe(0);
  });
});

describe('the top pages read with the sums', () => {
  /** A range of whole months, one that cuts a month at each end, one that cuts the rolled-up months, and one past them. */
  const RANGES = [
    ['2026-01-01', '2026-03-01'],
    ['2026-01-15', '2026-03-03'],
    ['2026-01-01', '2026-02-20'],
    ['2026-02-01', '2026-03-03'],
    ['2026-02-03', '2026-02-09'],
  ] as const;

  it('are the same as from the days, each month wholly inside the range read from its sums, a cut month from its rows', async () => {
    await refreshLake(destination, UNITS);
    for (const [from, to] of RANGES) {
      const days = await topPages(from, to, false);
      const rolled = await topPages(from, to);
      expect(rolled.rows, `${from}…${to}`).toEqual(days.rows);
      expect(days.sums).toEqual([]);
      expect(rolled.sums, `${from}…${to}`).toEqual(
        MONTHS.filter((month) => `${month}-01` >= from && `${month === '2026-01' ? '2026-02' : '2026-03'}-01` <= to),
      );
    }
  });

  it('a sums file missing, or of another build than its roll-up, is never read: the rows are', async () => {
    await refreshLake(destination, UNITS);
    const expected = await topPages('2026-01-01', '2026-03-01', false);
    const january = rollupSumsKey(VIEWS_PAGES.prefix, '2026-01');
    const february = rollupSumsKey(VIEWS_PAGES.prefix, '2026-02');
    // February's sums of an older build: the month rebuilt after a re-export, the old sums put back.
    const stale = path.join(root, 'stale.parquet');
    await copyFile(path.join(root, february), stale);
    await exportDay('2026-02-11', 'proj_a', 555);
    await refreshLake(destination, [{ dataset: 'views', day: '2026-02-11', projectId: 'proj_a' }]);
    await copyFile(stale, path.join(root, february));
    await rm(path.join(root, january));
    const changed = await topPages('2026-01-01', '2026-03-01', false);
    expect(changed.rows).not.toEqual(expected.rows);
    const rolled = await topPages('2026-01-01', '2026-03-01');
    expect(rolled.sums).toEqual([]);
    expect(rolled.rows).toEqual(changed.rows);
  });

  it('a project whose part of the roll-up is stale is read from its days, the others from the sums', async () => {
    await refreshLake(destination, UNITS);
    // A day re-exported without the end-of-run refresh: proj_b's part of February no longer matches its manifests.
    await exportDay('2026-02-20', 'proj_b', 321);
    const days = await topPages('2026-01-01', '2026-03-01', false);
    const rolled = await topPages('2026-01-01', '2026-03-01');
    expect(rolled.sums).toEqual([...MONTHS]);
    expect(rolled.rows).toEqual(days.rows);
  });

  it('a session whose days begin inside a month: that month read from the rows of its days, even for a range holding all of it', async () => {
    await refreshLake(destination, UNITS);
    const some = DAYS.filter((day) => day >= '2026-01-10');
    const days = await topPages('2026-01-01', '2026-03-01', false, some);
    const rolled = await topPages('2026-01-01', '2026-03-01', true, some);
    expect(rolled.sums).toEqual(['2026-02']);
    expect(rolled.rows).toEqual(days.rows);
  });
});

describe('the top pages with the sums equal the top pages from the days', () => {
  type Step =
    | { readonly kind: 'reexport'; readonly day: number; readonly project: number; readonly seed: number; readonly refreshed: boolean }
    | { readonly kind: 'expire'; readonly day: number; readonly project: number }
    | { readonly kind: 'compact' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant('reexport' as const),
      day: fc.nat(DAYS.length - 1),
      project: fc.nat(1),
      seed: fc.nat(1000),
      refreshed: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('expire' as const), day: fc.nat(DAYS.length - 1), project: fc.nat(1) }),
    fc.record({ kind: fc.constant('compact' as const) }),
  );
  /** A range of the days: its first day's index and its length (a month whole, cut or none). */
  const range = fc
    .record({ start: fc.nat(DAYS.length - 1), length: fc.integer({ min: 1, max: DAYS.length }) })
    .map(({ start, length }) => ({ from: DAYS[start] as string, to: DAYS[Math.min(start + length, DAYS.length - 1)] as string }))
    .filter(({ from, to }) => from < to);

  it('after random re-exports (refreshed at the run’s end or cut short before it), expiries and compact runs, over random ranges', async () => {
    await refreshLake(destination, UNITS);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), fc.array(range, { minLength: 2, maxLength: 2 }), async (steps, ranges) => {
        const committed = committedUnits(destination);
        for (const s of steps) {
          const unit = {
            dataset: 'views' as const,
            day: DAYS[s.kind === 'compact' ? 0 : s.day] as string,
            projectId: PROJECTS[s.kind === 'compact' ? 0 : s.project] as string,
          };
          if (s.kind === 'reexport') {
            await exportDay(unit.day, unit.projectId, s.seed);
            await committed(unit);
            if (s.refreshed) await refreshLake(destination, [unit]);
          } else if (s.kind === 'expire') {
            await removeMonthRollups(destination, unit);
            await dropManifest(destination, 'views', unit.day, unit.projectId);
            for (const table of [VIEWS_PAGES, VIEWS_TOTALS]) await destination.delete(dayKey(table.prefix, unit.day, `${unit.projectId}.parquet`));
          } else await compactLake(destination, { datasets: ['views'] });
          for (const { from, to } of [...ranges, { from: '2026-01-01', to: '2026-03-01' }]) {
            expect((await topPages(from, to)).rows, `${from}…${to} after ${JSON.stringify(s)}`).toEqual((await topPages(from, to, false)).rows);
          }
        }
      }),
      // Each run on the lake the steps before left (a lake a test): the sums built, stale, removed and rebuilt in turn.
      { numRuns: 4, seed: 51 },
    );
  }, 240_000);
});
