/**
 * A roll-up's sums (lake/rollups.ts): beside the monthly roll-up of `views_pages`, its rows
 * summed per project and page, `_rollups/views_pages/month=YYYY-MM.sums.parquet` (lake/layout.ts
 * `rollupSumsKey`). The top pages (queries/top-pages.sql) only sum `total`, `human` and `ai` per
 * project and page over the days, so a month wholly inside a question's `[from, to)` is read
 * from its sums, exactly — a year of twenty projects: ~0.9M rows in place of 26.8M.
 *
 * Derived like the roll-up, and never trusted more than it: built from the roll-up's own file
 * in the same step (before its record is written), removed with it, and both files carry the
 * same build id in their Parquet metadata. A reader uses a month's sums only where it reads the
 * month's roll-up (its record matched today's manifests: lake/files.ts) and the two ids are the
 * same — the sums then are the sums of the very rows it would read; a sums file missing, of
 * another build, or of an older writer (no id) is never read: the roll-up's rows are. A month
 * the question's range cuts is read from its rows.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Destination } from '../../shared/storage/destination.js';
import type { DuckDbSession } from '../duckdb.js';
import { fileList, sqlString } from '../sql.js';
import type { TableDef } from '../table-def.js';
import { monthOfDay, rollupSumsKey } from './layout.js';
import { daysOfMonth } from './unit-index.js';

/** The tables with sums: the columns grouped by, the columns summed, and the questions (queries/, by id) that may read them. */
export const SUMMED_TABLES: Readonly<
  Record<string, { readonly by: readonly string[]; readonly sums: readonly string[]; readonly questions: readonly string[] }>
> = {
  views_pages: { by: ['project_id', 'path'], sums: ['total', 'human', 'ai'], questions: ['TopPages'] },
};

/** The Parquet metadata key of a roll-up's build, in the roll-up's file and its sums' alike. */
export const BUILD_KEY = 'mintlify_rollup_build';

/** The options of a roll-up's (or its sums') `COPY … TO`: its build id in the file's metadata. */
export function buildMetadata(build: string): string {
  return `KV_METADATA {${BUILD_KEY}: ${sqlString(build)}}`;
}

/**
 * Writes the sums of the roll-up file `rollup` of `table` into `out` with the roll-up's build id;
 * false (nothing written) for a table without sums, or a roll-up without every column summed
 * (day files of an older exporter: its rows are read).
 */
export async function writeSumsFile(connection: DuckDBConnection, table: Pick<TableDef, 'name'>, rollup: string, out: string, build: string): Promise<boolean> {
  const summed = SUMMED_TABLES[table.name];
  if (summed === undefined) return false;
  const schema = await connection.runAndReadAll(`SELECT DISTINCT name FROM parquet_schema(${sqlString(rollup)})`);
  const columns = new Set(schema.getRowObjects().map((row) => String(row['name'])));
  if (![...summed.by, ...summed.sums].every((column) => columns.has(column))) return false;
  const sums = summed.sums.map((column) => `sum(${column})::BIGINT AS ${column}`);
  await connection.run(
    `COPY (SELECT ${summed.by.join(', ')}, ${sums.join(', ')} FROM read_parquet(${sqlString(rollup)}) GROUP BY ALL ORDER BY ALL) ` +
      `TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880, ${buildMetadata(build)})`,
  );
  return true;
}

/** Puts a roll-up's sums file (`body`), or removes the sums of a table with sums when there is none: never a stale one beside a new roll-up. */
export async function putSums(destination: Pick<Destination, 'put' | 'delete'>, table: TableDef, month: string, body: Buffer | undefined): Promise<void> {
  if (body !== undefined) await destination.put(rollupSumsKey(table.prefix, month), body, { contentType: 'application/vnd.apache.parquet' });
  else if (SUMMED_TABLES[table.name] !== undefined) await destination.delete(rollupSumsKey(table.prefix, month));
}

/** Removes a roll-up's sums (with the roll-up: lake/rollups.ts `removeRollup`). */
export async function removeSums(destination: Pick<Destination, 'delete'>, table: TableDef, month: string): Promise<void> {
  if (SUMMED_TABLES[table.name] !== undefined) await destination.delete(rollupSumsKey(table.prefix, month));
}

/** Whether a roll-up's record of `table` says its sums were written with it (a record of an older writer does not: built again). */
export function sumsRecorded(table: Pick<TableDef, 'name'>, record: unknown): boolean {
  if (SUMMED_TABLES[table.name] === undefined) return true;
  return typeof record === 'object' && record !== null && typeof (record as { sums?: unknown }).sums === 'string';
}

/** A file a session reads (lake/files.ts `TableFile`, not imported: files.ts stands on rollups.ts, which stands on this). */
interface TableFile {
  readonly day: string;
  readonly projectId: string;
  readonly key: string;
  readonly rollup?: true;
}

/** The months of a loaded table whose sums may stand for its roll-up's rows, and how to read them over a range. */
export interface SummedMonths {
  /** The relation of the table for a question over `[from, to)`: its rows, with the months wholly inside read from their sums; undefined when none is. */
  relationFor(from: string, to: string): string | undefined;
}

/**
 * The sums of the roll-ups among `listed` (a table's files, as the session reads them over the
 * days `window`; under `root`) whose sums file is there with the roll-up's build id. `rows(files)`
 * is the session's relation of the table over some of its files (the columns, `dt` range and
 * nulls of its view). A month is read from its sums only when it is wholly inside both the
 * question's range and `window` (the view keeps the rows of its days only).
 */
export async function summedMonths(
  session: Pick<DuckDbSession, 'query'>,
  root: string,
  table: TableDef,
  listed: readonly TableFile[],
  window: { readonly first: string; readonly last: string },
  rows: (files: readonly TableFile[]) => string,
): Promise<SummedMonths | undefined> {
  const summed = SUMMED_TABLES[table.name];
  if (summed === undefined) return undefined;
  const rollups = new Map<string, string>();
  for (const file of listed) if (file.rollup) rollups.set(file.key, monthOfDay(file.day));
  const present = (
    await Promise.all(
      [...rollups].map(async ([key, month]) => {
        const sums = rollupSumsKey(table.prefix, month);
        return (await exists(path.join(root, ...sums.split('/')))) ? { key, month, sums } : undefined;
      }),
    )
  ).filter((found) => found !== undefined);
  if (present.length === 0) return undefined;
  const builds = new Map<string, string>();
  const files = present.flatMap(({ key, sums }) => [key, sums]);
  for (const row of await session.query(
    `SELECT file_name, decode(value) AS build FROM parquet_kv_metadata(${fileList(files)}) WHERE decode(key) = ${sqlString(BUILD_KEY)}`,
  )) {
    builds.set(String(row['file_name']), String(row['build']));
  }
  const buildOf = (key: string) => [...builds].find(([name]) => name === key || name.endsWith(`/${key}`))?.[1];
  const valid = present.filter(({ key, sums }) => buildOf(key) !== undefined && buildOf(key) === buildOf(sums));
  if (valid.length === 0) return undefined;
  // The projects the session keeps of each roll-up (as lake/files.ts `rollupScopes`): those it reads the month of there.
  const scopes = new Map<string, Set<string>>();
  for (const file of listed) if (file.rollup) scopes.set(file.key, (scopes.get(file.key) ?? new Set()).add(file.projectId));
  return {
    relationFor(from, to) {
      const whole = valid.filter(({ month }) => {
        const days = daysOfMonth(month);
        const [start, end] = [days[0] as string, days[days.length - 1] as string];
        return start >= from && end < to && start >= window.first && end <= window.last;
      });
      if (whole.length === 0) return undefined;
      const covered = new Set(whole.map(({ key }) => key));
      // One scan of the sums of the months whose roll-ups the session reads for the same projects (12 scans united held
      // ~250 MB more for the year's top pages). Their `dt` is the range's first day: the question keeps rows by `dt`
      // within its range, and every month read here is wholly inside it.
      const groups = new Map<string, string[]>();
      for (const { key, sums } of whole) {
        const projects = [...(scopes.get(key) ?? [])].sort().map(sqlString).join(', ');
        groups.set(projects, [...(groups.get(projects) ?? []), sums]);
      }
      const parts = [...groups].map(
        ([projects, files]) =>
          `SELECT ${[...summed.by, ...summed.sums].join(', ')}, ${sqlString(from)} AS dt FROM read_parquet(${fileList(files)}) WHERE list_contains([${projects}], project_id)`,
      );
      const days = listed.filter((file) => !covered.has(file.key));
      return `(SELECT * FROM (${rows(days)}) UNION ALL BY NAME ${parts.join(' UNION ALL BY NAME ')})`;
    },
  };
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
