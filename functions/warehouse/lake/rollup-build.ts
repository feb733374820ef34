/**
 * One monthly roll-up built (lake/rollups.ts decides which, and when): a table's month of day
 * files fetched into a work folder, copied by DuckDB into one Parquet file in day and project
 * order, its sums beside it, then its record. A refresh builds through {@link withBuilder}: its
 * DuckDB instances, one thread each, are opened once and reused from one build to the next,
 * {@link ROLLUPS_AT_ONCE} builds at once in a process.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { eachAtOnce, gate } from '../../shared/concurrency.js';
import type { Destination } from '../../shared/storage/destination.js';
import { sqlString } from '../sql.js';
import type { TableDef } from '../table-def.js';
import { dayKey, rollupKey } from './layout.js';
import { buildMetadata, putSums, writeSumsFile } from './rollup-sums.js';

/**
 * DuckDB, loaded by a name a bundler does not follow and only when a roll-up is built: the
 * export's cold start does not pay for it. The functions that build roll-ups carry it in their
 * asset (infra/constructs/duckdb-bundling.ts); where it is missing a roll-up is removed instead
 * (its days are read) and the run says so.
 */
const DUCKDB_PACKAGE = '@duckdb/node-api';

/**
 * Roll-ups built at once in a process, each by its own DuckDB on one thread: two keep two cores
 * busy, and no more than two roll-ups' bytes are held at a time. The refreshes (lake/rollups.ts)
 * take months and their tables two at once; the builds wait at this gate.
 */
export const ROLLUPS_AT_ONCE = 2;
const building = gate(ROLLUPS_AT_ONCE);

/** The days of the month one project's part of a roll-up was built from: day → its manifest's identity (lake/rollups.ts `dayIdentity`). */
export type SettledDays = Readonly<Record<string, string>>;

/** What `month=YYYY-MM.json` beside a roll-up holds. */
export interface RollupRecord {
  readonly version: 2;
  readonly table: string;
  readonly month: string;
  readonly builtAt: string;
  /** Each project it holds: the day files it was built from (by day) and its rows. */
  readonly projects: Readonly<Record<string, { readonly days: SettledDays; readonly rows: number }>>;
  readonly rows: number;
  /** The roll-up's bytes, and the day files' it was built from. */
  readonly bytes: number;
  readonly dayBytes: number;
  /** The build id its sums file (lake/rollup-sums.ts) carries, when the table has sums and they were written with it. */
  readonly sums?: string;
}

/**
 * A DuckDB that a refresh's builds use one after another, opened once a refresh and not once a
 * roll-up: opening one costs 20–50 ms, closing one holds the event loop (`closeSync`), and a
 * month of 20 projects built through two lanes took 7–9 s against 10–11 s with an instance a
 * roll-up (bench/README.md, 3 Dec). Its temp and home folder live as long as it does.
 */
interface Lane {
  readonly instance: DuckDBInstance;
  readonly connection: DuckDBConnection;
  readonly folder: string;
}

async function openLane(): Promise<Lane> {
  const { DuckDBInstance } = (await import(DUCKDB_PACKAGE)) as typeof import('@duckdb/node-api');
  const folder = await mkdtemp(path.join(tmpdir(), 'mintlify-rollup-duckdb-'));
  try {
    // One thread: an order-keeping COPY of hundreds of small files costs more CPU on two threads
    // than on one (4.3 s against 2.3 s for a month of assistant conversations) and gains little
    // wall time; builds run ROLLUPS_AT_ONCE at once instead (bench/README.md, 3 Dec).
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    const lane = { instance, connection, folder };
    try {
      await connection.run(`SET temp_directory = ${sqlString(folder)}`);
      await connection.run(`SET home_directory = ${sqlString(folder)}`);
      await connection.run('SET preserve_insertion_order = true');
      // No cache of the files read: each build reads other day files once, and the cache would
      // hold every one a lane read (~180 MB after five tables of a month of 20 projects).
      await connection.run('SET enable_external_file_cache = false');
      return lane;
    } catch (error) {
      await closeLane(lane);
      throw error;
    }
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

async function closeLane(lane: Lane): Promise<void> {
  lane.connection.closeSync();
  lane.instance.closeSync();
  await rm(lane.folder, { recursive: true, force: true });
}

/** A roll-up built: its record, and the projects left out (a day file missing), if any. */
export type BuiltRollup = RollupRecord & { readonly missing?: readonly string[] };

/** Builds the roll-up of `table`'s `month` from the day files of `projects` ({@link withBuilder}). */
export type Builder = (
  destination: Pick<Destination, 'get' | 'put' | 'delete'>,
  table: TableDef,
  month: string,
  projects: ReadonlyMap<string, SettledDays>,
) => Promise<BuiltRollup>;

/**
 * Runs `refresh` with a {@link Builder} whose builds wait at the process's gate and reuse the
 * DuckDB lanes this call opens (at most {@link ROLLUPS_AT_ONCE}); every lane is closed when
 * `refresh` ends. A lane whose build failed is closed at once, not reused.
 */
export async function withBuilder<T>(refresh: (build: Builder) => Promise<T>): Promise<T> {
  const idle: Lane[] = [];
  const build: Builder = (destination, table, month, projects) =>
    building(async () => {
      const lane = idle.pop() ?? (await openLane());
      try {
        const built = await buildRollup(lane, destination, table, month, projects);
        idle.push(lane);
        return built;
      } catch (error) {
        await closeLane(lane);
        throw error;
      }
    });
  try {
    return await refresh(build);
  } finally {
    for (const lane of idle.splice(0)) await closeLane(lane);
  }
}

/**
 * Builds the roll-up of `table`'s `month` from the day files of `projects` (read through
 * `destination`) with the DuckDB of `lane`, in day and project order, then its record: the
 * record last, so a roll-up cut short is never used. A project with a day file missing though
 * its manifest names it is left out (`missing` says why; its days are read); throws when every
 * project is.
 */
async function buildRollup(
  lane: Lane,
  destination: Pick<Destination, 'get' | 'put' | 'delete'>,
  table: TableDef,
  month: string,
  projects: ReadonlyMap<string, SettledDays>,
): Promise<BuiltRollup> {
  const work = await mkdtemp(path.join(tmpdir(), 'mintlify-rollup-'));
  try {
    const units = [...projects].flatMap(([projectId, days]) => Object.keys(days).map((day) => ({ day, projectId })));
    units.sort((a, b) => (a.day === b.day ? (a.projectId < b.projectId ? -1 : 1) : a.day < b.day ? -1 : 1));
    const files = units.map(({ day, projectId }) => path.join(work, ...dayKey(table.prefix, day, `${projectId}.parquet`).split('/')));
    let dayBytes = 0;
    /** Projects with a day file missing though its manifest names it: left out (their days are read), the first reason kept. */
    const missing = new Map<string, string>();
    // A folder a day, made once (not once a file); the files fetched 16 at once (a month of twenty projects is 600 files), listed in day and project order.
    for (const folder of new Set(files.map((file) => path.dirname(file)))) await mkdir(folder, { recursive: true });
    await eachAtOnce([...units.keys()], 16, async (i) => {
      const { day, projectId } = units[i] as { day: string; projectId: string };
      const key = dayKey(table.prefix, day, `${projectId}.parquet`);
      const body = await destination.get(key);
      if (body === undefined) {
        if (!missing.has(projectId))
          missing.set(projectId, `cannot roll up ${table.name} ${month} of ${projectId}: ${key} is missing though its manifest names it`);
        return;
      }
      await writeFile(files[i] as string, body);
      dayBytes += body.byteLength;
    });
    const held = new Map([...projects].filter(([projectId]) => !missing.has(projectId)));
    if (held.size === 0) throw new Error([...missing.values()][0]);
    const read = files.filter((_, i) => !missing.has((units[i] as { projectId: string }).projectId));
    const out = path.join(work, 'rollup.parquet');
    const [sumsOut, build] = [path.join(work, 'sums.parquet'), randomUUID()];
    const { connection } = lane;
    // The days' rows in day and project order (the files are listed so, and the lane keeps insertion order), `dt` a column of the file.
    const days = `read_parquet([${read.map(sqlString).join(', ')}], hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
    await connection.run(
      `COPY (SELECT * FROM ${days}) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880, ${buildMetadata(build)})`,
    );
    const summed = await writeSumsFile(connection, table, out, sumsOut, build);
    const counted = await connection.runAndReadAll(`SELECT project_id, count(*)::INTEGER AS n FROM read_parquet(${sqlString(out)}) GROUP BY 1`);
    const rows = new Map(counted.getRowObjects().map((row) => [String(row['project_id']), Number(row['n'] ?? 0)]));
    const bytes = await readFile(out);
    await destination.put(rollupKey(table.prefix, month), bytes, { contentType: 'application/vnd.apache.parquet' });
    // Its sums in the same step, before the record: a record names no roll-up whose sums are of another build.
    await putSums(destination, table, month, summed ? await readFile(sumsOut) : undefined);
    const record: RollupRecord = {
      version: 2,
      table: table.prefix,
      month,
      builtAt: new Date().toISOString(),
      projects: Object.fromEntries([...held].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, days]) => [id, { days, rows: rows.get(id) ?? 0 }])),
      rows: [...rows.values()].reduce((sum, n) => sum + n, 0),
      bytes: bytes.byteLength,
      dayBytes,
      ...(summed ? { sums: build } : {}),
    };
    await destination.put(rollupKey(table.prefix, month, 'json'), `${JSON.stringify(record)}\n`, { contentType: 'application/json' });
    return missing.size === 0 ? record : { ...record, missing: [...missing.values()] };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
