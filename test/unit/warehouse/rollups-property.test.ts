/**
 * A roll-up read always equals its days read (functions/warehouse/lake/rollups.ts and the one
 * listing, lake/files.ts): random lakes of a month and a few days, then random re-exports (with
 * the export's end-of-run refresh, or cut short before it), erasures (forget's `rewritingDays`),
 * expiries (retention's `removeMonthRollups`) and `compact` runs; after each step the rows a
 * reader gets with the roll-ups are the rows it gets from the day files, no roll-up's record
 * claims a project the reader would refuse (kept in step, not only caught when read), and no
 * roll-up holds an erased value.
 */
import { copyFile, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTarget } from '../../../functions/shared/storage/destinations.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { openDuckDb, parquetFiles, type DuckDbSession } from '../../../functions/warehouse/duckdb.js';
import { manifestKey } from '../../../functions/warehouse/keys.js';
import { dropManifest, putManifest } from '../../helpers/manifests.js';
import { fileKeys, rollupScopes, tableFiles } from '../../../functions/warehouse/lake/files.js';
import { dayKey, rollupKey } from '../../../functions/warehouse/lake/layout.js';
import { compactLake, refreshLake, removeMonthRollups, rewritingDays } from '../../../functions/warehouse/lake/rollups.js';
import { committedUnits } from '../../../functions/warehouse/lake/rollup-commits.js';
import { daysOfMonth } from '../../../functions/warehouse/lake/unit-index.js';
import { sqlString } from '../../../functions/warehouse/sql.js';
import { VISITORS_PAGES, VISITORS_TOTALS } from '../../../functions/warehouse/tables.js';
import { withRollups } from '../../helpers/env.js';

const PROJECTS = ['proj_a', 'proj_b'] as const;
const MONTH = '2026-02';
const DAYS = [...daysOfMonth(MONTH), '2026-03-01', '2026-03-02'];
const TABLES = [VISITORS_TOTALS, VISITORS_PAGES] as const;

type Step =
  | {
      readonly kind: 'reexport';
      readonly day: number;
      readonly project: number;
      readonly seed: number;
      readonly refreshed: boolean;
      readonly provisional: boolean;
    }
  | { readonly kind: 'erase'; readonly value: number }
  | { readonly kind: 'expire'; readonly day: number; readonly project: number }
  | { readonly kind: 'compact' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('reexport' as const),
    day: fc.nat(DAYS.length - 1),
    project: fc.nat(1),
    seed: fc.nat(1000),
    refreshed: fc.boolean(),
    provisional: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('erase' as const), value: fc.nat(9) }),
  fc.record({ kind: fc.constant('expire' as const), day: fc.nat(DAYS.length - 1), project: fc.nat(1) }),
  fc.record({ kind: fc.constant('compact' as const) }),
);

/** A window of the days starting and ending inside the month (or running past its end): its first day's index and length. */
const windowArb = fc
  .record({ start: fc.integer({ min: 1, max: DAYS.length - 2 }), length: fc.integer({ min: 1, max: DAYS.length - 2 }) })
  .map(({ start, length }) => ({ start, length: Math.min(length, DAYS.length - start) }));

/**
 * A tiny lake on disk, written as the export writes it: day files, then the manifest. Its own
 * writes (the stand-in export's and forget's) skip the fsync the export's make (`durable: false`:
 * what a reader sees is the same, durability is not what is checked here), and it keeps the
 * folders it made; the code under test (roll-ups, refresh, compaction, expiry) writes as it does.
 */
class Lake {
  private commits = 0;
  private readonly folders = new Set<string>();
  constructor(
    readonly root: string,
    readonly destination: Destination,
    private readonly db: DuckDbSession,
  ) {}

  /** Writes a unit's two day files (`rows` rows of values seeded by `seed`; the same rows in both tables) and its manifest. */
  async export(day: string, projectId: string, seed: number, provisional = false): Promise<void> {
    const rows = 1 + (seed % 4);
    const files: Record<string, string> = {};
    const bytes: Record<string, number> = {};
    const counts: Record<string, number> = {};
    let written: string | undefined;
    for (const table of TABLES) {
      const key = dayKey(table.prefix, day, `${projectId}.parquet`);
      const file = path.join(this.root, ...key.split('/'));
      await this.folder(path.dirname(file));
      // DuckDB writes the first table's file; the second table's holds the same rows, so it is a copy of it.
      if (written === undefined)
        await this.db.run(
          `COPY (SELECT ${sqlString(projectId)} AS project_id, DATE ${sqlString(day)} AS date, '/p' || (i % 3) AS path, ((i * 7 + ${seed}) % 10)::BIGINT AS total FROM range(${rows}) t(i)) TO ${sqlString(file)} (FORMAT parquet)`,
        );
      else await copyFile(written, file);
      written = file;
      files[table.name] = key;
      bytes[table.name] = (await stat(file)).size;
      counts[table.name] = rows;
    }
    await this.manifest(day, projectId, files, bytes, counts, provisional);
  }

  /** Makes a folder once (nothing here removes a day's folder: expiries and erasures remove or replace files). */
  private async folder(dir: string): Promise<void> {
    if (this.folders.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.folders.add(dir);
  }

  async manifest(day: string, projectId: string, files: object, bytes: object, rows: object, provisional = false): Promise<void> {
    this.commits += 1;
    const finishedAt = new Date(Date.UTC(2026, 3, 1) + this.commits * 1000).toISOString();
    const manifest = {
      version: 2,
      dataset: 'visitors',
      projectId,
      date: day,
      finishedAt,
      files,
      bytes,
      rows,
      ...(provisional ? { provisionalUntil: finishedAt } : {}),
    };
    await putManifest(this.destination, 'visitors', day, projectId, manifest);
  }

  /**
   * Every row of `table` over `days` (all of them unless told), as a reader gets them (roll-ups
   * first, or the days only): its first to last day kept by `dt`, as the report's session does.
   */
  async read(table: (typeof TABLES)[number], rollups: boolean, days: readonly string[] = DAYS): Promise<string[]> {
    return withRollups(rollups, async () => {
      const listed = await tableFiles({ root: this.root, folderReady: async () => undefined }, table.prefix, days);
      const files = fileKeys(listed).map((key) => path.join(this.root, key));
      if (files.length === 0) return [];
      const window = `dt >= ${sqlString(days[0] as string)} AND dt <= ${sqlString(days[days.length - 1] as string)}`;
      const sql = `SELECT project_id, date::VARCHAR AS date, path, total, dt FROM ${parquetFiles(files, rollupScopes(listed))} WHERE ${window}`;
      const rows = await this.db.query(sql);
      return rows.map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).sort();
    });
  }

  /** The projects the month's roll-up record of `table` claims that a reader would not read from it (its part no longer matches the manifests). */
  async staleClaims(table: (typeof TABLES)[number]): Promise<string[]> {
    const record = await this.destination.get(rollupKey(table.prefix, MONTH, 'json'));
    if (record === undefined) return [];
    const claimed = Object.keys((JSON.parse(Buffer.from(record).toString()) as { projects: object }).projects);
    const read =
      rollupScopes(await tableFiles({ root: this.root, folderReady: async () => undefined }, table.prefix, DAYS)).get(rollupKey(table.prefix, MONTH)) ?? [];
    return claimed.filter((project) => !read.includes(project)).sort();
  }

  /** `forget` of every row whose total is `value`: each file holding one rewritten without, its manifest's counts with it. */
  async erase(value: number): Promise<void> {
    const changed: { table: (typeof TABLES)[number]; day: string; projectId: string; kept: number }[] = [];
    for (const table of TABLES) {
      // Every day file of the table holding the value, and the rows it keeps without it, in one scan of them all.
      const present: { day: string; projectId: string; file: string }[] = [];
      for (const day of DAYS) {
        for (const projectId of PROJECTS) {
          const key = dayKey(table.prefix, day, `${projectId}.parquet`);
          if (await this.destination.exists(key)) present.push({ day, projectId, file: path.join(this.root, ...key.split('/')) });
        }
      }
      if (present.length === 0) continue;
      const hits = await this.db.query(
        `SELECT filename, count(*) FILTER (WHERE total <> ${value}) AS kept FROM read_parquet([${present.map((p) => sqlString(p.file)).join(', ')}], filename = true) GROUP BY filename HAVING bool_or(total = ${value})`,
      );
      const kept = new Map(hits.map((hit) => [String(hit['filename']), Number(hit['kept'])]));
      for (const { day, projectId, file } of present) {
        const rows = kept.get(file);
        if (rows !== undefined) changed.push({ table, day, projectId, kept: rows });
      }
    }
    await rewritingDays(this.destination, changed, async () => {
      for (const { table, day, projectId, kept } of changed) {
        const key = dayKey(table.prefix, day, `${projectId}.parquet`);
        const file = path.join(this.root, ...key.split('/'));
        await this.db.run(`COPY (SELECT * FROM read_parquet(${sqlString(file)}) WHERE total <> ${value}) TO ${sqlString(`${file}.new`)} (FORMAT parquet)`);
        await rename(`${file}.new`, file);
        const manifest = JSON.parse(Buffer.from((await this.destination.get(manifestKey('visitors', day, projectId))) ?? []).toString()) as Record<
          string,
          Record<string, unknown>
        >;
        (manifest['rows'] as Record<string, unknown>)[table.name] = kept;
        (manifest['bytes'] as Record<string, unknown>)[table.name] = (await stat(file)).size;
        await putManifest(this.destination, 'visitors', day, projectId, manifest);
      }
    });
  }

  /** Retention: the month's roll-ups go, then the unit's manifest and files. */
  async expire(day: string, projectId: string): Promise<void> {
    await removeMonthRollups(this.destination, { dataset: 'visitors', day, projectId });
    await dropManifest(this.destination, 'visitors', day, projectId);
    for (const table of TABLES) await this.destination.delete(dayKey(table.prefix, day, `${projectId}.parquet`));
  }
}

describe('a roll-up read equals its days read', () => {
  it('over random lakes, re-exports, erasures and expiries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), fc.nat(1000), windowArb, async (steps, seed, window) => {
        const root = await mkdtemp(path.join(tmpdir(), 'rollups-property-'));
        const db = await openDuckDb();
        const lake = new Lake(root, openTarget({ kind: 'local', dir: root }), db);
        try {
          for (const day of DAYS) for (const projectId of PROJECTS) await lake.export(day, projectId, seed + day.length * 3 + projectId.length);
          await compactLake(lake.destination, {});
          const erased: number[] = [];
          const committed = committedUnits(lake.destination);
          for (const s of steps) {
            if (s.kind === 'reexport') {
              const unit = { dataset: 'visitors' as const, day: DAYS[s.day] as string, projectId: PROJECTS[s.project] as string };
              await lake.export(unit.day, unit.projectId, s.seed, s.provisional);
              await committed(unit);
              if (s.refreshed) await refreshLake(lake.destination, [unit]);
            } else if (s.kind === 'erase') {
              await lake.erase(s.value);
              erased.push(s.value);
            } else if (s.kind === 'expire') await lake.expire(DAYS[s.day] as string, PROJECTS[s.project] as string);
            else await compactLake(lake.destination, {});
            for (const table of TABLES) expect(await lake.read(table, true), `${table.name} after ${JSON.stringify(s)}`).toEqual(await lake.read(table, false));
            // In the same step, not only behind the reader's check: no roll-up's record still claims a project the reader refuses
            // (a day re-exported retires its project's part as it commits; an expired day removes its month's roll-ups).
            for (const table of TABLES) expect(await lake.staleClaims(table), `${table.name} after ${JSON.stringify(s)}`).toEqual([]);
            // A window starting and ending inside the rolled-up month: its roll-up read for those days equals those days read.
            const inside = DAYS.slice(window.start, window.start + window.length);
            for (const table of TABLES)
              expect(await lake.read(table, true, inside), `${table.name} ${inside[0]}…${inside[inside.length - 1]} after ${JSON.stringify(s)}`).toEqual(
                await lake.read(table, false, inside),
              );
          }
          if (erased.length > 0) {
            const [left] = await db
              .query(
                `SELECT count(*) AS n FROM read_parquet(${sqlString(path.join(root, '_rollups', '**', '*.parquet'))}) WHERE total IN (${erased.join(', ')})`,
              )
              .catch(() => [{ n: 0 }]);
            expect(Number(left?.['n'] ?? 0), 'an erased value left in a roll-up').toBe(0);
          }
        } finally {
          db.close();
          await rm(root, { recursive: true, force: true });
        }
      }),
      // Four random lakes (seed 50's first four; each up to four steps, checked after each: a forget
      // that left its month's roll-ups as they were fails the first), and always the two steps the
      // first four happen not to draw: a re-export cut short before the end-of-run refresh (its
      // commit must retire its project's part at once) and an expiry (its month's roll-ups go first).
      {
        numRuns: 6,
        seed: 50,
        examples: [
          [[{ kind: 'reexport', day: 3, project: 0, seed: 7, refreshed: false, provisional: false }], 11, { start: 1, length: 5 }],
          [[{ kind: 'expire', day: 5, project: 1 }], 12, { start: 2, length: 4 }],
        ],
      },
    );
  }, 600_000);

  it('reads a window starting inside a rolled-up month from its roll-up, not its days', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rollups-window-'));
    const db = await openDuckDb();
    const lake = new Lake(root, openTarget({ kind: 'local', dir: root }), db);
    try {
      for (const day of DAYS) for (const projectId of PROJECTS) await lake.export(day, projectId, day.length);
      await compactLake(lake.destination, {});
      const window = DAYS.slice(9);
      const files = fileKeys(await tableFiles({ root, folderReady: async () => undefined }, VISITORS_PAGES.prefix, window));
      expect(files).toEqual([
        `_rollups/${VISITORS_PAGES.prefix}/month=${MONTH}.parquet`,
        ...['2026-03-01', '2026-03-02'].flatMap((day) => PROJECTS.map((p) => dayKey(VISITORS_PAGES.prefix, day, `${p}.parquet`))),
      ]);
      expect(await lake.read(VISITORS_PAGES, true, window)).toEqual(await lake.read(VISITORS_PAGES, false, window));
    } finally {
      db.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('leaves out of a month’s roll-up only the project whose day file is missing, and says so', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rollups-missing-'));
    const db = await openDuckDb();
    const lake = new Lake(root, openTarget({ kind: 'local', dir: root }), db);
    try {
      for (const day of DAYS) for (const projectId of PROJECTS) await lake.export(day, projectId, day.length + projectId.length);
      await lake.destination.delete(dayKey(VISITORS_PAGES.prefix, '2026-02-10', 'proj_a.parquet'));
      const built = await compactLake(lake.destination, {});
      expect(built).toMatchObject({ built: 2, failed: 1 });
      expect(built.error).toContain('proj_a');
      const listed = await tableFiles({ root, folderReady: async () => undefined }, VISITORS_PAGES.prefix, DAYS);
      expect(rollupScopes(listed).get(`_rollups/${VISITORS_PAGES.prefix}/month=${MONTH}.parquet`)).toEqual(['proj_b']);
      expect(
        rollupScopes(await tableFiles({ root, folderReady: async () => undefined }, VISITORS_TOTALS.prefix, DAYS)).get(
          `_rollups/${VISITORS_TOTALS.prefix}/month=${MONTH}.parquet`,
        ),
      ).toEqual(['proj_a', 'proj_b']);
      for (const table of TABLES) expect(await lake.read(table, true)).toEqual(await lake.read(table, false));
    } finally {
      db.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('rolls up a month from its first exported day, and reads a day file before it from the file', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rollups-begun-'));
    const db = await openDuckDb();
    const lake = new Lake(root, openTarget({ kind: 'local', dir: root }), db);
    try {
      for (const day of DAYS) for (const projectId of PROJECTS) await lake.export(day, projectId, day.length);
      // The lake begins on the 3rd for proj_a; a day file of the 1st is left without its manifest (an export cut short).
      await lake.expire('2026-02-02', 'proj_a');
      await dropManifest(lake.destination, 'visitors', '2026-02-01', 'proj_a');
      const built = await compactLake(lake.destination, {});
      expect(built.months).toEqual([MONTH]);
      const listed = await tableFiles({ root, folderReady: async () => undefined }, VISITORS_PAGES.prefix, DAYS);
      const rollup = `_rollups/${VISITORS_PAGES.prefix}/month=${MONTH}.parquet`;
      expect(listed.filter((f) => f.projectId === 'proj_a' && f.key === rollup).map((f) => f.day)).toEqual(daysOfMonth(MONTH).slice(2));
      expect(listed.filter((f) => f.projectId === 'proj_a' && f.day < '2026-02-03').map((f) => f.key)).toEqual([
        dayKey(VISITORS_PAGES.prefix, '2026-02-01', 'proj_a.parquet'),
      ]);
      for (const table of TABLES) expect(await lake.read(table, true)).toEqual(await lake.read(table, false));
      // A day before the first exported later: proj_a's part no longer matches, its days are read; proj_b's part still is.
      await lake.export('2026-02-02', 'proj_a', 7);
      const after = await tableFiles({ root, folderReady: async () => undefined }, VISITORS_PAGES.prefix, DAYS);
      expect(after.filter((f) => f.key === rollup).map((f) => f.projectId)).toEqual(daysOfMonth(MONTH).map(() => 'proj_b'));
      expect(rollupScopes(after).get(rollup)).toEqual(['proj_b']);
      for (const table of TABLES) expect(await lake.read(table, true)).toEqual(await lake.read(table, false));
    } finally {
      db.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
