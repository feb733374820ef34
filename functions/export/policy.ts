/**
 * What a run is allowed to do, resolved once from `Config` (the handler and the CLI call
 * `exportPolicy`), and when it must stop. The two travel down unchanged: `runExport` →
 * `runUnits` → `exportUnit` → each request. No floor repacks them.
 */
import type { CallOptions } from '../shared/api-types.js';
import type { DatasetName } from '../warehouse/catalog.js';
import type { ConfigOf } from '../settings/config.js';
import { resolvePolicy, type PersonalDataPolicy } from '../warehouse/column-policy.js';
import { HOUR_MS } from '../shared/time.js';

/** The export's settings, from the configuration. */
export interface ExportPolicy {
  /** Projects when the request names none (MINTLIFY_PROJECT_IDS). */
  readonly projectIds: readonly string[];
  /** Where the projects' ids came from, named when one is unknown (404). @default MINTLIFY_PROJECT_IDS */
  readonly projectSource?: string;
  /** Datasets when the request names none (EXPORT_DATASETS). */
  readonly datasets: readonly DatasetName[];
  /** Earlier days whose missing units each scheduled run exports (EXPORT_HEAL_DAYS). */
  readonly healDays: number;
  /** Recent days whose `feedback` is exported again once a day (EXPORT_REFRESH_DAYS). */
  readonly refreshDays: number;
  /** A UTC day is exported this long after it ends, hours (EXPORT_SETTLE_HOURS). */
  readonly settleHours: number;
  /** Hard page cap per unit (EXPORT_MAX_PAGES). */
  readonly maxPages: number;
  /** Caps `limit` below each endpoint's maximum (EXPORT_PAGE_LIMIT); unset: the maximum. */
  readonly pageLimit?: number;
  /** The policy of each column (tables.ts, PERSONAL_DATA_POLICY). */
  readonly personalData: PersonalDataPolicy;
  /** Days of the tables holding personal columns are kept this long (PERSONAL_DATA_RETENTION_DAYS); unset: kept. */
  readonly retentionDays?: number;
  /** A checkpoint older than this restarts its unit (EXPORT_CHECKPOINT_MAX_AGE_HOURS), ms. */
  readonly checkpointMaxAgeMs: number;
}

/**
 * When a run stops: `deadline` (epoch ms after which no request starts: the Lambda's remaining
 * time), `signal` (at once: a page on its way is lost; a second Ctrl-C) and `stop` (gently: the
 * page on its way arrives and is staged first; a first Ctrl-C, SIGTERM). The same object is
 * every request's `CallOptions`.
 */
export type RunControl = CallOptions;

/** The policy of the export, from the configuration. */
export function exportPolicy(config: ConfigOf<'export'>, extra: { readonly projectSource?: string } = {}): ExportPolicy {
  return {
    projectIds: config.projectIds,
    ...(extra.projectSource !== undefined ? { projectSource: extra.projectSource } : {}),
    datasets: config.datasets,
    healDays: config.healDays,
    refreshDays: config.refreshDays,
    settleHours: config.settleHours,
    maxPages: config.maxPages,
    ...(config.pageLimit !== undefined ? { pageLimit: config.pageLimit } : {}),
    personalData: resolvePolicy(config.personalDataPolicy),
    ...(config.personalDataRetentionDays !== undefined ? { retentionDays: config.personalDataRetentionDays } : {}),
    checkpointMaxAgeMs: config.checkpointMaxAgeHours * HOUR_MS,
  };
}
