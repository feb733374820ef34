/**
 * Retention of personal data (PERSONAL_DATA_RETENTION_DAYS, docs/privacy.md): the days of the
 * tables that hold personal columns (feedback, searches, assistant conversations) older than
 * the limit are deleted by every export run (the hourly Lambda, `export` on a laptop), and
 * are never planned again; `status` shows their units `expired`.
 *
 * What goes, per expired unit of such a dataset: a record of its expiry is written first
 * (`_privacy/expired/<dataset>/dt=<day>/<project>.json`: when, under which limit, how many
 * files), then its manifest (the unit is no longer complete for any reader), then the personal
 * tables' files, then its staging; a local day folder left empty goes too. A deletion cut short
 * is finished by the next run: the table folders themselves are listed, not the manifests. A
 * summary table without personal columns (`searches_totals`) is kept.
 *
 * The record makes it stay done: `status` shows the unit `expired` and no later `plan` or
 * export asks the service for it again — with or without the variable, unless `--force` (a
 * laptop backfill must not fetch personal data the deployment deleted). The run says what it
 * did in one line (`describeRetention`).
 */
import { CATALOG, DATASET_TABLES, type DatasetName } from '../warehouse/catalog.js';
import { addDays, formatDay } from '../shared/dates.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError, describeError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import { manifestsOf, STAGING_PREFIX } from '../warehouse/keys.js';
import { dayFolderOfKey, dayKey, folderOf, monthOfDay, parseUnitKey } from '../warehouse/lake/layout.js';
import { PERSONAL_TABLES } from '../warehouse/column-policy.js';
import { removeMonthRollups } from '../warehouse/lake/rollups.js';
import { updateUnitIndexes } from '../warehouse/lake/unit-index.js';
import { markUnit } from '../warehouse/lake/unit-marks.js';
import { EXPIRED_PREFIX } from './erasures.js';
import { unitKey, type Unit } from './unit-id.js';
import type { IcebergSync } from './iceberg/sync.js';

/** The datasets whose tables hold personal columns. */
export const EXPIRING_DATASETS: readonly DatasetName[] = CATALOG.filter((entry) =>
  DATASET_TABLES[entry.name].some((table) => PERSONAL_TABLES.includes(table)),
).map((entry) => entry.name);

/** The first day kept: days before it expire. Undefined: nothing expires. */
export function retentionCutoff(retentionDays: number | undefined, now: number): string | undefined {
  return retentionDays === undefined ? undefined : addDays(formatDay(now), -retentionDays);
}

/** Whether the unit of `dataset` on `day` is past retention (`cutoff` from `retentionCutoff`). */
export function isExpired(unit: { readonly dataset: DatasetName; readonly day: string }, cutoff: string | undefined): boolean {
  return cutoff !== undefined && unit.day < cutoff && EXPIRING_DATASETS.includes(unit.dataset);
}

/** The key of the record of an expired unit. */
export function expiredKey(unit: Unit): string {
  return dayKey(folderOf('expired', unit.dataset), unit.day, `${unit.projectId}.json`);
}

/** What the record of an expired unit says. */
export interface ExpiredRecord {
  readonly version: 1;
  readonly dataset: DatasetName;
  readonly day: string;
  readonly projectId: string;
  /** When its files were deleted (ISO). */
  readonly expiredAt: string;
  /** The limit it was past (PERSONAL_DATA_RETENTION_DAYS), and the first day that limit kept. */
  readonly retentionDays: number;
  readonly before: string;
  /** Files deleted. */
  readonly files: number;
}

/**
 * The units that expired at `destination` (keyed by `unitKey`): read from the records' keys
 * alone, one listing. A destination that cannot list has none to tell.
 */
export async function readExpiredUnits(destination: Destination): Promise<ReadonlySet<string>> {
  const keys = (await destination.list?.(EXPIRED_PREFIX)) ?? [];
  const units = new Set<string>();
  for (const key of keys) {
    const unit = key.endsWith('.json') ? parseUnitKey(key) : undefined;
    const dataset = unit?.folder.startsWith(EXPIRED_PREFIX) ? (unit.folder.slice(EXPIRED_PREFIX.length) as DatasetName) : undefined;
    if (unit && dataset && EXPIRING_DATASETS.includes(dataset)) units.add(unitKey({ dataset, day: unit.day, projectId: unit.projectId }));
  }
  return units;
}

/** What one retention pass deleted. */
export interface RetentionResult {
  readonly files: number;
  /** The expired days it deleted something of, sorted. */
  readonly days: readonly string[];
  /** Units it deleted something of (each now has its record). */
  readonly units: number;
}

/**
 * The one line a run prints when it expired files, e.g. `expired 12 file(s) of 3 day(s) before
 * 2026-02-08 (PERSONAL_DATA_RETENTION_DAYS=3)`; undefined when it deleted nothing.
 */
export function describeRetention(result: RetentionResult, cutoff: string, retentionDays: number): string | undefined {
  if (result.files === 0) return undefined;
  return `expired ${result.files} file(s) of ${result.days.length} day(s) before ${cutoff} (PERSONAL_DATA_RETENTION_DAYS=${retentionDays})`;
}

/**
 * Deletes what is past `cutoff` (see the module's header), leaving a record per unit. A
 * destination that cannot list is an error.
 */
export async function deleteExpired(
  destination: Destination,
  cutoff: string,
  options: { readonly now: number; readonly retentionDays: number },
): Promise<RetentionResult> {
  const list = destination.list?.bind(destination);
  if (!list) throw new DestinationError(`${destination.url} cannot list its files: PERSONAL_DATA_RETENTION_DAYS cannot be applied there`);
  const days = new Set<string>();
  /** `<dataset>/<month>` whose roll-ups this call removed. */
  const rolledUpMonthsRemoved = new Set<string>();
  let files = 0;
  let units = 0;
  const expiredUnits: Unit[] = [];
  for (const dataset of EXPIRING_DATASETS) {
    const keys = [
      ...(await list(manifestsOf(dataset))),
      ...(await Promise.all(DATASET_TABLES[dataset].filter((t) => PERSONAL_TABLES.includes(t)).map((table) => list(`${table.prefix}/`)))).flat(),
      ...(await list(`${STAGING_PREFIX}/${dataset}/`)),
    ];
    // Each expired unit's keys, in deletion order: manifest, tables, staging (the order listed).
    const byUnit = new Map<string, { unit: Unit; keys: string[] }>();
    for (const key of keys) {
      // Where a key of an expiring dataset's unit names the unit: its manifest, a table file, its staging.
      const match = parseUnitKey(key);
      if (!match || match.day >= cutoff) continue;
      const unit: Unit = { dataset, day: match.day, projectId: match.projectId };
      const entry = byUnit.get(unitKey(unit)) ?? { unit, keys: [] };
      entry.keys.push(key);
      byUnit.set(unitKey(unit), entry);
    }
    for (const { unit, keys: unitKeys } of [...byUnit.values()].sort((a, b) => unitKey(a.unit).localeCompare(unitKey(b.unit)))) {
      const record: ExpiredRecord = {
        version: 1,
        dataset,
        day: unit.day,
        projectId: unit.projectId,
        expiredAt: new Date(options.now).toISOString(),
        retentionDays: options.retentionDays,
        before: cutoff,
        files: unitKeys.length,
      };
      // The record first: a run cut short after it still never plans the unit again.
      await destination.put(expiredKey(unit), `${JSON.stringify(record, null, 2)}\n`, { contentType: 'application/json' });
      // Its month's roll-ups go before its days (warehouse/lake/rollups.ts): none keeps an expired row. A
      // month's roll-up holds every project's days, so it goes once, before the month's first expired unit.
      const month = `${dataset}/${monthOfDay(unit.day)}`;
      if (!rolledUpMonthsRemoved.has(month)) {
        await removeMonthRollups(destination, unit);
        rolledUpMonthsRemoved.add(month);
      }
      // Its mark in the index of units before its manifest goes (warehouse/lake/unit-marks.ts).
      await markUnit(destination, unit);
      for (const key of unitKeys) {
        await destination.delete(key);
        files += 1;
      }
      days.add(unit.day);
      units += 1;
      expiredUnits.push(unit);
      // The day folders it emptied (local; S3 has none): a folder still holding a file stays.
      for (const folder of new Set(unitKeys.flatMap((key) => dayFolderOfKey(key)?.folder ?? []))) await destination.removeEmptyFolder?.(folder);
    }
  }
  // The indexes of their months without them, their marks removed; left marked when it cannot be done (readers then check those
  // months against the manifests): the expiry itself is done.
  await updateUnitIndexes(destination, expiredUnits).catch(() => undefined);
  return { files, days: [...days].sort(), units };
}

/** What a run's retention set-up takes. */
export interface RetentionDeps {
  readonly destination: Destination;
  readonly now: () => number;
  readonly logger?: AppLogger | undefined;
  /** The Iceberg tables' DELETE of the same days (iceberg/sync.ts); absent: none. */
  readonly iceberg?: Pick<IcebergSync, 'expire'> | undefined;
}

/**
 * A run's retention set-up: deletes the days past retention, each expired unit recorded, and
 * returns the cutoff its plan is filtered with (`withoutExpired`) and the one line that says what
 * expired (none when nothing did); the run goes on if the deletion fails (the next run tries
 * again), and says so.
 */
export async function applyRetention(retentionDays: number | undefined, deps: RetentionDeps): Promise<{ cutoff?: string; line?: string }> {
  const cutoff = retentionCutoff(retentionDays, deps.now());
  if (cutoff === undefined || retentionDays === undefined) return {};
  try {
    const deleted = await deleteExpired(deps.destination, cutoff, { now: deps.now(), retentionDays });
    await deps.iceberg?.expire(cutoff, deleted.days);
    const line = describeRetention(deleted, cutoff, retentionDays);
    if (line !== undefined) {
      deps.logger?.info(line, { before: cutoff, files: deleted.files, days: deleted.days.length, units: deleted.units });
      return { cutoff, line };
    }
  } catch (error) {
    deps.logger?.error('could not delete the personal data past retention: the next run tries again', { before: cutoff, error: describeError(error) });
  }
  return { cutoff };
}

/** The planned units without the expired ones (they are never exported again), logged when any. */
export function withoutExpired<U extends { readonly dataset: DatasetName; readonly day: string }>(
  units: readonly U[],
  cutoff: string | undefined,
  deps: Pick<RetentionDeps, 'logger'>,
): U[] {
  const kept = units.filter((unit) => !isExpired(unit, cutoff));
  if (kept.length < units.length) {
    deps.logger?.info('units past PERSONAL_DATA_RETENTION_DAYS are not exported', { before: cutoff, units: units.length - kept.length });
  }
  return kept;
}
