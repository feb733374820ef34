/**
 * Retention of personal data (PERSONAL_DATA_RETENTION_DAYS, docs/privacy.md): the days of the
 * tables that hold personal columns (feedback, searches, assistant conversations) older than
 * the limit are deleted by every export run (the hourly Lambda, `export` on a laptop), and
 * are never planned again; `status` shows their units `expired`.
 *
 * What goes, per expired day of such a dataset: its manifest first (the unit is no longer
 * complete for any reader), then the personal tables' files, then its staging. A deletion cut
 * short is finished by the next run: the table folders themselves are listed, not the
 * manifests. A summary table without personal columns (`searches_totals`) is kept.
 */
import { CATALOG, DATASET_TABLES, type DatasetName } from '../warehouse/catalog.js';
import { addDays, formatDay } from '../shared/dates.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError, describeError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import { manifestsOf, STAGING_PREFIX } from '../warehouse/keys.js';
import { PERSONAL_TABLES } from '../warehouse/column-policy.js';

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

const DAY_IN_KEY = /\/dt=(\d{4}-\d{2}-\d{2})\//;

/** What one retention pass deleted. */
export interface RetentionResult {
  readonly files: number;
  /** The expired days it deleted something of, sorted. */
  readonly days: readonly string[];
}

/** Deletes what is past `cutoff` (see the module's header). A destination that cannot list is an error. */
export async function deleteExpired(destination: Destination, cutoff: string): Promise<RetentionResult> {
  const list = destination.list?.bind(destination);
  if (!list) throw new DestinationError(`${destination.url} cannot list its files: PERSONAL_DATA_RETENTION_DAYS cannot be applied there`);
  const days = new Set<string>();
  let files = 0;
  const expired = (key: string) => {
    const day = DAY_IN_KEY.exec(`/${key}`)?.[1];
    return day !== undefined && day < cutoff ? day : undefined;
  };
  const remove = async (keys: readonly string[]) => {
    for (const key of [...keys].sort()) {
      const day = expired(key);
      if (day === undefined) continue;
      await destination.delete(key);
      days.add(day);
      files += 1;
    }
  };
  for (const dataset of EXPIRING_DATASETS) {
    await remove(await list(manifestsOf(dataset)));
    for (const table of DATASET_TABLES[dataset].filter((t) => PERSONAL_TABLES.includes(t))) await remove(await list(`${table.prefix}/`));
    await remove(await list(`${STAGING_PREFIX}/${dataset}/`));
  }
  return { files, days: [...days].sort() };
}

/** What a run's retention set-up takes. */
export interface RetentionDeps {
  readonly destination: Destination;
  readonly now: () => number;
  readonly logger?: AppLogger | undefined;
}

/**
 * A run's retention set-up: deletes the days past retention and returns the cutoff its plan is
 * filtered with (`withoutExpired`); the run goes on if the deletion fails (the next run tries
 * again), and says so.
 */
export async function applyRetention(retentionDays: number | undefined, deps: RetentionDeps): Promise<string | undefined> {
  const cutoff = retentionCutoff(retentionDays, deps.now());
  if (cutoff === undefined) return undefined;
  try {
    const deleted = await deleteExpired(deps.destination, cutoff);
    if (deleted.files > 0) {
      deps.logger?.info('personal data past retention deleted', { before: cutoff, files: deleted.files, days: deleted.days.length });
    }
  } catch (error) {
    deps.logger?.error('could not delete the personal data past retention: the next run tries again', { before: cutoff, error: describeError(error) });
  }
  return cutoff;
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
