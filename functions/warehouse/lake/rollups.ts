/**
 * Monthly roll-ups: a month of one table in one Parquet file holding every project of the
 * destination whose days of the month are all committed and settled,
 * `_rollups/<table>/month=YYYY-MM.parquet` (lake/layout.ts), the rows of its day files in day
 * and project order with their `dt` as a column, and beside it its record (`.json`: per
 * project, the day files it was built from and their manifests' identity; a digest of each in
 * the month's index of units too, so a reader checks it without a read). Derived, never the
 * source of truth: a reader uses it for a project only when that project's part of the record
 * matches the manifests of today ({@link rollupProjects}), reads that project's days
 * otherwise, and keeps the file's rows of the projects it uses (duckdb.ts `parquetFiles`).
 * The export (a day exported again), `forget` and retention rebuild or remove a month's
 * roll-up in the same step as they change its days ({@link refreshLake}). The warehouse's Glue
 * tables stay on the day files: `_rollups/` is no table's location.
 */
import { createHash } from 'node:crypto';
import type { Destination } from '../../shared/storage/destination.js';
import { eachAtOnce } from '../../shared/concurrency.js';
import type { AppLogger } from '../../shared/logger.js';
import { DATASET_NAMES, DATASET_TABLES, type DatasetName } from '../catalog.js';
import type { TableDef } from '../table-def.js';
import { manifestsOf, parseManifestKey } from '../keys.js';
import { monthOfDay, rollupKey } from './layout.js';
import { ROLLUPS_AT_ONCE, withBuilder, type Builder, type RollupRecord, type SettledDays } from './rollup-build.js';
import { refreshRunIndexes } from './run-index.js';
import { removeSums, sumsRecorded } from './rollup-sums.js';
import { daysOfMonth, readJson, readUnitIndexes, recordRollups, updateUnitIndexes, type RawManifest } from './unit-index.js';
import { indexEntry } from './unit-marks.js';

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
 * manifest that is not provisional and names the table's file: what a project's part of a
 * roll-up must be built from and its record match; undefined when a day after the first is
 * missing or unsettled (the month not over, or a hole). A day before the first exported later
 * makes the record stale.
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

/** The projects of `manifests` (entries `<day>/<projectId>`), sorted. */
export function projectsOf(manifests: ReadonlyMap<string, RawManifest>): string[] {
  return [...new Set([...manifests.keys()].map((entry) => entry.slice(entry.indexOf('/') + 1)))].sort();
}

/** Every project of `manifests` whose month of `table` is settled, with its days: what the month's roll-up holds. */
export function settledProjects(manifests: ReadonlyMap<string, RawManifest>, table: string, month: string): Map<string, SettledDays> {
  const out = new Map<string, SettledDays>();
  for (const projectId of projectsOf(manifests)) {
    const days = settledMonth(manifests, table, month, projectId);
    if (days !== undefined) out.set(projectId, days);
  }
  return out;
}

function sameDays(recorded: unknown, now: SettledDays): boolean {
  if (typeof recorded !== 'object' || recorded === null) return false;
  const days = recorded as Record<string, unknown>;
  return Object.keys(days).length === Object.keys(now).length && Object.entries(now).every(([day, identity]) => days[day] === identity);
}

/** The projects part of `record` (a roll-up's record of `table`'s `month`, as stored); undefined when it is not one. */
export function recordedProjects(record: unknown, table: string, month: string): Record<string, { days?: unknown }> | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as Partial<RollupRecord>;
  if (r.version !== 2 || r.table !== table || r.month !== month || typeof r.projects !== 'object' || r.projects === null) return undefined;
  return r.projects as Record<string, { days?: unknown }>;
}

/** Whether `record` holds exactly the projects of `wanted`, each from the same day files: the roll-up need not be built again. */
function recordMatches(record: unknown, table: string, month: string, wanted: ReadonlyMap<string, SettledDays>): boolean {
  const recorded = recordedProjects(record, table, month);
  if (recorded === undefined || Object.keys(recorded).length !== wanted.size) return false;
  return [...wanted].every(([projectId, days]) => sameDays(recorded[projectId]?.days, days));
}

/** A project's part of a roll-up as the month's index keeps it: a digest of the day files it was built from. */
export function rollupFingerprint(days: SettledDays): string {
  const sorted = Object.entries(days).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** A project's part of a roll-up inside its month's index: `<table folder>/<projectId>`. */
export function indexedRollupName(table: Pick<TableDef, 'prefix'>, projectId: string): string {
  return `${table.prefix}/${projectId}`;
}

/**
 * The projects (of `wanted`, else every project of `manifests`) the roll-up of `table`'s
 * `month` may be read for — its record of the project matches the manifests of today — each
 * with the days it holds of it. The records the month's index holds (`indexed`) are checked
 * first, without a read; only when one is absent or differs is the record beside the roll-up
 * read, once (a lake rolled up before the index held them, or an index a step cut short did
 * not update).
 */
export async function rollupProjects(
  destination: Pick<Destination, 'get'>,
  table: TableDef,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  indexed: Readonly<Record<string, string>> | undefined,
  wanted?: ReadonlySet<string>,
): Promise<Map<string, readonly string[]>> {
  const out = new Map<string, readonly string[]>();
  let beside: Promise<unknown> | undefined;
  for (const projectId of projectsOf(manifests)) {
    if (wanted !== undefined && !wanted.has(projectId)) continue;
    const now = settledMonth(manifests, table.name, month, projectId);
    if (now === undefined) continue;
    if (indexed?.[indexedRollupName(table, projectId)] !== rollupFingerprint(now)) {
      beside ??= readRollupRecord(destination, table, month);
      if (!sameDays(recordedProjects(await beside, table.prefix, month)?.[projectId]?.days, now)) continue;
    }
    out.set(projectId, Object.keys(now).sort());
  }
  return out;
}

/** Counts of one refresh (each roll-up is a table's month), for the tests, `compact` and the benchmark. */
export interface RollupCounts {
  built: number;
  removed: number;
  kept: number;
  /** Roll-ups that could not be built (removed instead: the days are read), and the first reason. */
  failed: number;
  error?: string;
}

/** Removes a roll-up: its record first (no reader uses it from then on), then the file and its sums. */
export async function removeRollup(destination: Pick<Destination, 'delete'>, table: TableDef, month: string): Promise<void> {
  await destination.delete(rollupKey(table.prefix, month, 'json'));
  await destination.delete(rollupKey(table.prefix, month));
  await removeSums(destination, table, month);
}

/** The record of a roll-up, as stored; undefined when absent or unreadable. */
export function readRollupRecord(destination: Pick<Destination, 'get'>, table: TableDef, month: string): Promise<unknown> {
  return readJson(destination, rollupKey(table.prefix, month, 'json'));
}

/**
 * Makes the roll-up of `table`'s `month` agree with its manifests: it holds every project whose
 * days of the month are all settled — built again when its record does not say exactly those
 * projects from those day files (or with `rebuild`), kept when it does, removed when no
 * project's month is whole. `records` gets each project's digest for the month's index
 * (`undefined`: none any more). True when the roll-up stands (built or kept).
 */
async function refreshTable(
  build: Builder,
  destination: Pick<Destination, 'get' | 'put' | 'delete'>,
  table: TableDef,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  counts: RollupCounts,
  options: { readonly rebuild?: boolean },
  records: Map<string, string | undefined>,
): Promise<boolean> {
  const wanted = settledProjects(manifests, table.name, month);
  const had = await readRollupRecord(destination, table, month);
  // Every project the index may name for this roll-up: none left but those it holds now.
  const named = new Set([...projectsOf(manifests), ...Object.keys(recordedProjects(had, table.prefix, month) ?? {})]);
  const recordAll = (holds: boolean) => {
    for (const projectId of named) {
      const days = holds ? wanted.get(projectId) : undefined;
      records.set(indexedRollupName(table, projectId), days === undefined ? undefined : rollupFingerprint(days));
    }
  };
  if (wanted.size === 0) {
    await removeRollup(destination, table, month);
    recordAll(false);
    if (had !== undefined) counts.removed += 1;
    return false;
  }
  if (!options.rebuild && recordMatches(had, table.prefix, month, wanted) && sumsRecorded(table, had)) {
    recordAll(true);
    counts.kept += 1;
    return true;
  }
  try {
    const built = await build(destination, table, month, wanted);
    // A project left out (a day file missing) is not named in the index: its days are read.
    for (const projectId of [...wanted.keys()]) if (!(projectId in built.projects)) wanted.delete(projectId);
    recordAll(true);
    counts.built += 1;
    if (built.missing !== undefined) {
      counts.failed += 1;
      counts.error ??= built.missing[0] ?? 'a day file is missing';
    }
    return true;
  } catch (error) {
    // Without DuckDB (a function bundled without it) or a day file unreadable: the stale one goes, the days are read.
    await removeRollup(destination, table, month);
    recordAll(false);
    counts.failed += 1;
    counts.error ??= error instanceof Error ? error.message : String(error);
    return false;
  }
}

/** One dataset's month to refresh, with the manifests of its index of units. */
interface MonthToRefresh {
  readonly dataset: DatasetName;
  readonly month: string;
  readonly manifests: ReadonlyMap<string, RawManifest>;
}

/** The bytes of `table`'s day files that `manifests` name: how long its roll-up takes to build, to start the longest first. */
function tableBytes(manifests: ReadonlyMap<string, RawManifest>, table: Pick<TableDef, 'name'>): number {
  let bytes = 0;
  for (const manifest of manifests.values()) bytes += Number((manifest['bytes'] as Record<string, unknown> | undefined)?.[table.name]) || 0;
  return bytes;
}

/**
 * Makes the roll-ups of every table of `months` agree with their manifests
 * ({@link refreshTable}): {@link ROLLUPS_AT_ONCE} tables at once, the largest first (the last
 * to start is a short one, so the two builds end together); each month's index records its
 * roll-ups once the last of its tables is done. Returns the months with a roll-up standing.
 */
async function refreshMonths(
  build: Builder,
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  months: readonly MonthToRefresh[],
  counts: RollupCounts,
  options: { readonly rebuild?: boolean } = {},
): Promise<Set<string>> {
  const standing = new Set<string>();
  const entries = months.map((entry) => ({ ...entry, records: new Map<string, string | undefined>(), left: DATASET_TABLES[entry.dataset].length }));
  const jobs = entries.flatMap((entry) => DATASET_TABLES[entry.dataset].map((table) => ({ entry, table, bytes: tableBytes(entry.manifests, table) })));
  jobs.sort((a, b) => b.bytes - a.bytes);
  await eachAtOnce(jobs, ROLLUPS_AT_ONCE, async ({ entry, table }) => {
    if (await refreshTable(build, destination, table, entry.month, entry.manifests, counts, options, entry.records)) standing.add(entry.month);
    entry.left -= 1;
    if (entry.left === 0) await recordRollups(destination, entry.dataset, entry.month, entry.records);
  });
  return standing;
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
  const months: MonthToRefresh[] = [];
  for (const entry of [...new Set(changed.map((unit) => `${unit.dataset}/${monthOfDay(unit.day)}`))].sort()) {
    const [dataset, month] = entry.split('/') as [DatasetName, string];
    const manifests = indexes.get(entry);
    if (manifests !== undefined) months.push({ dataset, month, manifests });
    // A destination that cannot list: no index, so no roll-up may stand.
    else for (const table of DATASET_TABLES[dataset]) await removeRollup(destination, table, month);
  }
  await withBuilder((build) => refreshMonths(build, destination, months, counts, options));
  return counts;
}

/**
 * Builds every roll-up missing or out of date over the months of `[from, to)` (whole months
 * only) — of the months `projects` have units in, when given; a month's roll-up always holds
 * every settled project — and the run log's index of every month: `compact` for a lake written
 * before roll-ups. Month by month, every dataset's tables of a month built together (one
 * month's manifests held at a time).
 */
export async function compactLake(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  options: { readonly from?: string; readonly to?: string; readonly projects?: ReadonlySet<string>; readonly datasets?: readonly DatasetName[] },
): Promise<RollupCounts & { months: string[] }> {
  const counts: RollupCounts = { built: 0, removed: 0, kept: 0, failed: 0 };
  const rolled = new Set<string>();
  const datasets = options.datasets ?? DATASET_NAMES;
  const monthsBy = new Map(await Promise.all(datasets.map(async (dataset) => [dataset, new Set(await monthsOf(destination, dataset))] as const)));
  const inRange = (month: string) => {
    const days = daysOfMonth(month);
    return !(
      (options.from !== undefined && (days[0] as string) < options.from) ||
      (options.to !== undefined && (days[days.length - 1] as string) >= options.to)
    );
  };
  await withBuilder(async (build) => {
    for (const month of [...new Set([...monthsBy.values()].flatMap((months) => [...months]))].sort()) {
      const due: MonthToRefresh[] = [];
      for (const dataset of datasets) {
        if (!monthsBy.get(dataset)?.has(month)) continue;
        // Every month checked against its manifests, marked or not, in range or not: a manifest changed by hand is seen from here on.
        const read = await readUnitIndexes(destination, dataset, [month], { keep: true, check: true });
        if (read === undefined)
          throw new Error(`${'url' in destination ? String(destination.url) : 'the destination'} cannot list its keys: no roll-up can be built`);
        const manifests = read.get(month);
        const projects = options.projects;
        if (manifests === undefined || !inRange(month) || (projects !== undefined && !projectsOf(manifests).some((id) => projects.has(id)))) continue;
        due.push({ dataset, month, manifests });
      }
      for (const standing of await refreshMonths(build, destination, due, counts)) rolled.add(standing);
    }
  });
  await refreshRunIndexes(destination, options);
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

/** Removes the roll-ups of the month of `unit` of its dataset's tables, every project's (retention: before its days go). */
export async function removeMonthRollups(
  destination: Pick<Destination, 'delete'>,
  unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string },
): Promise<void> {
  for (const table of DATASET_TABLES[unit.dataset]) await removeRollup(destination, table, monthOfDay(unit.day));
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
  const months = new Map(units.map((unit) => [`${unit.dataset}/${monthOfDay(unit.day)}`, unit]));
  for (const unit of months.values()) await removeMonthRollups(destination, unit);
  const result = await rewrite();
  await refreshLake(destination, units, { rebuild: true });
  return result;
}
