/**
 * Monthly roll-ups: a settled month of one table and project in one Parquet file,
 * `_rollups/<table>/month=YYYY-MM/<projectId>.parquet` (lake/layout.ts), the rows of its day
 * files in day order with their `dt` as a column, and beside it its record (`.json`: the day
 * files it was built from and their manifests' identity; a digest of it in the month's index of
 * units too, so a reader checks it without a read). Derived, never the source of truth:
 * a reader uses one only when its record matches the manifests of today ({@link validRollup}),
 * and the export (a day exported again), `forget` and retention rebuild or remove a month's
 * roll-ups in the same step as they change its days ({@link refreshLake}). Built once every
 * day of the month has a manifest that is not provisional. The warehouse's Glue tables stay on
 * the day files: `_rollups/` is no table's location.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Destination } from '../../shared/storage/destination.js';
import type { AppLogger } from '../../shared/logger.js';
import { DATASET_NAMES, DATASET_TABLES, type DatasetName } from '../catalog.js';
import { sqlString } from '../sql.js';
import type { TableDef } from '../tables.js';
import { manifestsOf, parseManifestKey } from '../keys.js';
import { dayKey, monthOfDay, rollupKey } from './layout.js';
import { daysOfMonth, indexEntry, readJson, readUnitIndexes, recordRollups, updateUnitIndexes, type RawManifest } from './unit-index.js';

/**
 * DuckDB, loaded by a name a bundler does not follow and only when a roll-up is built: the
 * export's cold start does not pay for it. The functions that build roll-ups carry it in their
 * asset (infra/constructs/duckdb-bundling.ts); where it is missing a roll-up is removed instead
 * (its days are read) and the run says so.
 */
const DUCKDB_PACKAGE = '@duckdb/node-api';

/** What `<projectId>.json` beside a roll-up holds. */
export interface RollupRecord {
  readonly version: 1;
  readonly table: string;
  readonly month: string;
  readonly projectId: string;
  readonly builtAt: string;
  /** Each day file it holds, with its manifest's identity ({@link dayIdentity}), by day. */
  readonly days: Readonly<Record<string, string>>;
  readonly rows: number;
  /** The roll-up's bytes, and the day files' it was built from. */
  readonly bytes: number;
  readonly dayBytes: number;
}

/** The dataset whose unit writes `table` (by its folder), if any. */
export function datasetOfTable(folder: string): { readonly dataset: DatasetName; readonly table: TableDef } | undefined {
  for (const dataset of DATASET_NAMES) {
    const table = DATASET_TABLES[dataset].find((t) => t.prefix === folder);
    if (table) return { dataset, table };
  }
  return undefined;
}

/** A day file's identity as its manifest says it: when the unit was committed, the file's key, bytes and rows. */
export function dayIdentity(manifest: RawManifest, table: string): string | undefined {
  const field = (name: string) => (manifest[name] as Record<string, unknown> | undefined)?.[table];
  const key = field('files');
  if (typeof key !== 'string' || typeof manifest['finishedAt'] !== 'string') return undefined;
  return `${manifest['finishedAt']}|${key}|${String(field('bytes'))}|${String(field('rows'))}`;
}

/**
 * The identities of the days of `month` of `table` and `projectId` from its first exported day
 * (the first with a manifest: a lake begun inside the month) to its last, when each has a
 * manifest that is not provisional and names the table's file: what a roll-up must be built
 * from and a record match; undefined when a day after the first is missing or unsettled (the
 * month not over, or a hole). A day before the first exported later makes the record stale.
 */
export function settledMonth(manifests: ReadonlyMap<string, RawManifest>, table: string, month: string, projectId: string): Record<string, string> | undefined {
  const days: Record<string, string> = {};
  const all = daysOfMonth(month);
  const first = all.findIndex((day) => manifests.has(indexEntry(day, projectId)));
  if (first < 0) return undefined;
  for (const day of all.slice(first)) {
    const manifest = manifests.get(indexEntry(day, projectId));
    if (manifest === undefined || manifest['provisionalUntil'] !== undefined) return undefined;
    const identity = dayIdentity(manifest, table);
    if (identity === undefined) return undefined;
    days[day] = identity;
  }
  return days;
}

/** Whether `record` was built from exactly the day files `manifests` name now. */
export function validRollup(record: unknown, manifests: ReadonlyMap<string, RawManifest>, table: string, month: string, projectId: string): boolean {
  if (typeof record !== 'object' || record === null) return false;
  const r = record as Partial<RollupRecord>;
  if (r.version !== 1 || r.table !== table || r.month !== month || r.projectId !== projectId || typeof r.days !== 'object' || r.days === null) return false;
  const now = settledMonth(manifests, table, month, projectId);
  if (now === undefined) return false;
  const recorded = r.days as Record<string, unknown>;
  return Object.keys(recorded).length === Object.keys(now).length && Object.entries(now).every(([day, identity]) => recorded[day] === identity);
}

/** A roll-up's record as the month's index keeps it: a digest of the day files it was built from (`RollupRecord.days`). */
export function rollupFingerprint(days: Readonly<Record<string, string>>): string {
  const sorted = Object.entries(days).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** A roll-up's name inside its month's index: `<table folder>/<projectId>`. */
export function indexedRollupName(table: Pick<TableDef, 'prefix'>, projectId: string): string {
  return `${table.prefix}/${projectId}`;
}

/**
 * The days the roll-up of `table`'s `month` of `projectId` holds when it may be read (its
 * record matches the manifests of today), undefined when it may not. The record the month's
 * index holds (`indexed`) is checked first, without a read; only when it is absent or differs
 * is the record beside the roll-up read (a lake rolled up before the index held them, or an
 * index a step cut short did not update).
 */
export async function rollupDays(
  destination: Pick<Destination, 'get'>,
  table: TableDef,
  month: string,
  projectId: string,
  manifests: ReadonlyMap<string, RawManifest>,
  indexed: Readonly<Record<string, string>> | undefined,
): Promise<string[] | undefined> {
  const now = settledMonth(manifests, table.name, month, projectId);
  if (now === undefined) return undefined;
  const days = Object.keys(now).sort();
  if (indexed?.[indexedRollupName(table, projectId)] === rollupFingerprint(now)) return days;
  return validRollup(await readRollupRecord(destination, table, month, projectId), manifests, table.name, month, projectId) ? days : undefined;
}

/** Counts of one refresh, for the tests, `compact` and the benchmark. */
export interface RollupCounts {
  built: number;
  removed: number;
  kept: number;
  /** Roll-ups that could not be built (removed instead: the days are read), and the first reason. */
  failed: number;
  error?: string;
}

/**
 * Builds the roll-up of `table`'s `month` of `projectId` from its day files (read through
 * `destination`), then its record: the record last, so a roll-up cut short is never used.
 */
export async function buildRollup(
  destination: Pick<Destination, 'get' | 'put'>,
  table: TableDef,
  month: string,
  projectId: string,
  days: Readonly<Record<string, string>>,
): Promise<RollupRecord> {
  const work = await mkdtemp(path.join(tmpdir(), 'mintlify-rollup-'));
  try {
    const files: string[] = [];
    let dayBytes = 0;
    for (const day of Object.keys(days).sort()) {
      const key = dayKey(table.prefix, day, `${projectId}.parquet`);
      const bytes = await destination.get(key);
      if (bytes === undefined) throw new Error(`cannot roll up ${table.name} ${month} of ${projectId}: ${key} is missing though its manifest names it`);
      const file = path.join(work, ...key.split('/'));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, bytes);
      files.push(file);
      dayBytes += bytes.byteLength;
    }
    const out = path.join(work, 'rollup.parquet');
    const { DuckDBInstance } = (await import(DUCKDB_PACKAGE)) as typeof import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    let rows = 0;
    try {
      await connection.run(`SET temp_directory = ${sqlString(work)}`);
      await connection.run(`SET home_directory = ${sqlString(work)}`);
      // The days' rows in day order (the files are listed so), `dt` a column of the file.
      await connection.run('SET preserve_insertion_order = true');
      const read = `read_parquet([${files.map(sqlString).join(', ')}], hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
      await connection.run(`COPY (SELECT * FROM ${read}) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
      const counted = await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(out)})`);
      rows = Number(counted.getRowObjects()[0]?.['n'] ?? 0);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const bytes = await readFile(out);
    await destination.put(rollupKey(table.prefix, month, projectId), bytes, { contentType: 'application/vnd.apache.parquet' });
    const record: RollupRecord = {
      version: 1,
      table: table.prefix,
      month,
      projectId,
      builtAt: new Date().toISOString(),
      days,
      rows,
      bytes: bytes.byteLength,
      dayBytes,
    };
    await destination.put(rollupKey(table.prefix, month, projectId, 'json'), `${JSON.stringify(record)}\n`, { contentType: 'application/json' });
    return record;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Removes a roll-up: its record first (no reader uses it from then on), then the file. */
export async function removeRollup(destination: Pick<Destination, 'delete'>, table: TableDef, month: string, projectId: string): Promise<void> {
  await destination.delete(rollupKey(table.prefix, month, projectId, 'json'));
  await destination.delete(rollupKey(table.prefix, month, projectId));
}

/** The record of a roll-up, as stored; undefined when absent or unreadable. */
export function readRollupRecord(destination: Pick<Destination, 'get'>, table: TableDef, month: string, projectId: string): Promise<unknown> {
  return readJson(destination, rollupKey(table.prefix, month, projectId, 'json'));
}

/**
 * Makes the roll-ups of one dataset's month of one project agree with its manifests: each
 * table's is built when every day is settled and its record does not match, kept when it
 * does, removed when the month is no longer whole (a day erased, expired or being exported).
 */
export async function refreshMonth(
  destination: Pick<Destination, 'get' | 'put' | 'delete'>,
  dataset: DatasetName,
  month: string,
  projectId: string,
  manifests: ReadonlyMap<string, RawManifest>,
  counts: RollupCounts,
  options: { readonly rebuild?: boolean } = {},
  records: Map<string, string | undefined> = new Map(),
): Promise<void> {
  for (const table of DATASET_TABLES[dataset]) {
    const name = indexedRollupName(table, projectId);
    const days = settledMonth(manifests, table.name, month, projectId);
    if (days === undefined) {
      const had = await readRollupRecord(destination, table, month, projectId);
      await removeRollup(destination, table, month, projectId);
      records.set(name, undefined);
      if (had !== undefined) counts.removed += 1;
      continue;
    }
    if (!options.rebuild && validRollup(await readRollupRecord(destination, table, month, projectId), manifests, table.name, month, projectId)) {
      records.set(name, rollupFingerprint(days));
      counts.kept += 1;
      continue;
    }
    try {
      await buildRollup(destination, table, month, projectId, days);
      records.set(name, rollupFingerprint(days));
      counts.built += 1;
    } catch (error) {
      // Without DuckDB (a function bundled without it) or a day file unreadable: the stale one goes, the days are read.
      await removeRollup(destination, table, month, projectId);
      records.set(name, undefined);
      counts.failed += 1;
      counts.error ??= error instanceof Error ? error.message : String(error);
    }
  }
}

/** The records of `records` (by dataset and month) written into their months' indexes. */
async function indexRecords(destination: Pick<Destination, 'get' | 'put'>, records: ReadonlyMap<string, Map<string, string | undefined>>): Promise<void> {
  for (const [entry, changes] of records) {
    const [dataset, month] = entry.split('/') as [DatasetName, string];
    await recordRollups(destination, dataset, month, changes);
  }
}

/**
 * After units' manifests were written or removed (the export's commits, `forget`, retention):
 * their months' indexes updated, and each touched month's roll-ups rebuilt — an erased row or
 * an expired day never stays in one — or removed. `rebuild`: every touched roll-up built again
 * even when its record matches (forget: the day files' bytes changed under the same manifest).
 */
export async function refreshLake(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  changed: readonly { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }[],
  options: { readonly rebuild?: boolean } = {},
): Promise<RollupCounts> {
  const counts: RollupCounts = { built: 0, removed: 0, kept: 0, failed: 0 };
  if (changed.length === 0) return counts;
  const indexes = await updateUnitIndexes(destination, changed);
  const months = new Set(changed.map((unit) => `${unit.dataset}/${monthOfDay(unit.day)}/${unit.projectId}`));
  const records = new Map<string, Map<string, string | undefined>>();
  for (const entry of [...months].sort()) {
    const [dataset, month, projectId] = entry.split('/') as [DatasetName, string, string];
    const manifests = indexes.get(`${dataset}/${month}`);
    if (manifests === undefined) {
      // A destination that cannot list: no index, so no roll-up may stand.
      for (const table of DATASET_TABLES[dataset]) await removeRollup(destination, table, month, projectId);
      continue;
    }
    const ofMonth = records.get(`${dataset}/${month}`) ?? new Map<string, string | undefined>();
    records.set(`${dataset}/${month}`, ofMonth);
    await refreshMonth(destination, dataset, month, projectId, manifests, counts, options, ofMonth);
  }
  await indexRecords(destination, records);
  return counts;
}

/**
 * Builds every roll-up missing or out of date over the months of `[from, to)` (whole months
 * only), for `projects` when given: `compact` for a lake written before roll-ups.
 */
export async function compactLake(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  options: { readonly from?: string; readonly to?: string; readonly projects?: ReadonlySet<string>; readonly datasets?: readonly DatasetName[] },
): Promise<RollupCounts & { months: string[] }> {
  const counts: RollupCounts = { built: 0, removed: 0, kept: 0, failed: 0 };
  const rolled = new Set<string>();
  for (const dataset of options.datasets ?? DATASET_NAMES) {
    const all = await readUnitIndexes(destination, dataset, await monthsOf(destination, dataset), undefined, undefined, true);
    if (all === undefined)
      throw new Error(`${'url' in destination ? String(destination.url) : 'the destination'} cannot list its keys: no roll-up can be built`);
    for (const [month, manifests] of all) {
      const days = daysOfMonth(month);
      if ((options.from !== undefined && (days[0] as string) < options.from) || (options.to !== undefined && (days[days.length - 1] as string) >= options.to))
        continue;
      const projects = new Set([...manifests.keys()].map((entry) => entry.split('/')[1] as string));
      const records = new Map<string, string | undefined>();
      for (const projectId of [...projects].sort()) {
        if (options.projects !== undefined && !options.projects.has(projectId)) continue;
        const before = counts.built + counts.kept;
        await refreshMonth(destination, dataset, month, projectId, manifests, counts, {}, records);
        if (counts.built + counts.kept > before) rolled.add(month);
      }
      await recordRollups(destination, dataset, month, records);
    }
  }
  return { ...counts, months: [...rolled].sort() };
}

/** The months a dataset has manifests of. */
async function monthsOf(destination: Pick<Destination, 'list'>, dataset: DatasetName): Promise<string[]> {
  const keys = (await destination.list?.(manifestsOf(dataset))) ?? [];
  return [...new Set(keys.flatMap((key) => parseManifestKey(dataset, key)?.day.slice(0, 7) ?? []))].sort();
}

/**
 * {@link refreshLake} after a step that changed units (the export's run, `forget`, retention),
 * never failing it: the roll-ups are derived, and one left out of date is never read (its
 * record no longer matches). Says what it did, or could not, on `logger`.
 */
export async function refreshLakeAfter(
  step: string,
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  changed: readonly { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }[],
  logger?: Pick<AppLogger, 'warn' | 'info'>,
  options: { readonly rebuild?: boolean } = {},
): Promise<RollupCounts | undefined> {
  if (changed.length === 0) return undefined;
  try {
    const counts = await refreshLake(destination, changed, options);
    if (counts.failed > 0) logger?.warn(`${step}: ${counts.failed} monthly roll-up(s) could not be built; their days are read instead`, { ...counts });
    else if (counts.built + counts.removed > 0) logger?.info(`${step}: monthly roll-ups built ${counts.built}, removed ${counts.removed}`, { ...counts });
    return counts;
  } catch (error) {
    logger?.warn(`${step}: the index of units and the monthly roll-ups could not be brought up to date; readers check them against the manifests`, {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/** A unit named by a table file: its table's folder, day and project. */
export interface ChangedDay {
  readonly table: { readonly prefix: string };
  readonly day: string;
  readonly projectId: string;
}

/** The units of `days` (each once): a table file's unit is its dataset's. */
function unitsOfDays(days: readonly ChangedDay[]): { dataset: DatasetName; day: string; projectId: string }[] {
  const units = new Map<string, { dataset: DatasetName; day: string; projectId: string }>();
  for (const { table, day, projectId } of days) {
    const owner = datasetOfTable(table.prefix);
    if (owner) units.set(`${owner.dataset}/${day}/${projectId}`, { dataset: owner.dataset, day, projectId });
  }
  return [...units.values()];
}

/** Removes every roll-up of the month of `unit` of its dataset's tables (retention: before its days go). */
export async function removeMonthRollups(
  destination: Pick<Destination, 'delete'>,
  unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string },
): Promise<void> {
  for (const table of DATASET_TABLES[unit.dataset]) await removeRollup(destination, table, monthOfDay(unit.day), unit.projectId);
}

/**
 * Rewrites day files (`forget`) with the roll-ups of their months kept in step: removed before
 * `rewrite` runs — a run cut short leaves no roll-up holding an erased row —, then the index of
 * those units and the roll-ups built again from the new day files. Throws when a roll-up cannot
 * be removed: the erasure must not report done while one may still hold the rows.
 */
export async function rewritingDays<T>(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  days: readonly ChangedDay[],
  rewrite: () => Promise<T>,
): Promise<T> {
  const units = unitsOfDays(days);
  for (const unit of units) await removeMonthRollups(destination, unit);
  const result = await rewrite();
  await refreshLake(destination, units, { rebuild: true });
  return result;
}

/**
 * What the export calls as each unit commits: a month already rolled up loses its roll-ups'
 * records at once (one existence check per dataset, month and project a run), so a run cut
 * short before its end ({@link refreshLakeAfter}) never leaves a roll-up of the old day read.
 */
export function committedUnits(
  destination: Pick<Destination, 'exists' | 'delete'>,
): (unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }) => Promise<void> {
  const checked = new Map<string, Promise<boolean>>();
  return async (unit) => {
    const month = monthOfDay(unit.day);
    const name = `${unit.dataset}/${month}/${unit.projectId}`;
    let rolled = checked.get(name);
    if (rolled === undefined) {
      const first = DATASET_TABLES[unit.dataset][0] as TableDef;
      rolled = destination.exists(rollupKey(first.prefix, month, unit.projectId, 'json'));
      checked.set(name, rolled);
    }
    if (!(await rolled)) return;
    for (const table of DATASET_TABLES[unit.dataset]) await destination.delete(rollupKey(table.prefix, month, unit.projectId, 'json'));
  };
}

/** How far one month is rolled up: roll-ups with a record, of the dataset tables × projects asked. */
export interface MonthRolledUp {
  readonly month: string;
  readonly rolled: number;
  readonly of: number;
}

/**
 * The months of `days` and how many of their roll-ups (dataset tables × `projects`) have a
 * record: what `status` says. Only the records' presence is asked, not whether they still match.
 */
export async function rolledUpMonths(
  destination: Pick<Destination, 'exists'>,
  days: readonly string[],
  projects: readonly string[],
  datasets: readonly DatasetName[],
): Promise<MonthRolledUp[]> {
  const months = [...new Set(days.map(monthOfDay))];
  const out: MonthRolledUp[] = [];
  for (const month of months.sort()) {
    const keys = datasets.flatMap((dataset) =>
      DATASET_TABLES[dataset].flatMap((table) => projects.map((projectId) => rollupKey(table.prefix, month, projectId, 'json'))),
    );
    const present = await Promise.all(keys.map((key) => destination.exists(key)));
    out.push({ month, rolled: present.filter(Boolean).length, of: keys.length });
  }
  return out;
}

/** `status`'s line: `roll-ups (tables × projects): 2026-03 all 14, 2026-04 none (…)`; undefined when no month has one. */
export function describeRolledUp(months: readonly MonthRolledUp[]): string | undefined {
  if (months.every(({ rolled }) => rolled === 0)) return undefined;
  const parts = months.map(({ month, rolled, of }) => (rolled === of ? `${month} all ${of}` : rolled === 0 ? `${month} none` : `${month} ${rolled} of ${of}`));
  const hint = months.some(({ rolled, of }) => rolled < of) ? ' (once settled; `compact` for an older lake)' : '';
  return `roll-ups (tables × projects): ${parts.join(', ')}${hint}`;
}
