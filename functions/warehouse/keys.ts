/**
 * The bucket's key layout beside the tables: where a unit's commit marker (manifest) and its
 * checkpoints (staging) live. Table files are keyed by `partitionKey` (`tables.ts`); these keys
 * are by dataset, so they read the catalog's names.
 */
import type { DatasetName } from './catalog.js';
import { SCRATCH_PREFIX } from '../shared/storage/destination.js';

/** Folder of the commit markers: `<dest>/_manifests/<dataset>/dt=YYYY-MM-DD/<projectId>.json`. */
export const MANIFESTS_PREFIX = '_manifests';

/** Where the commit marker of one unit lives; written after every table file of the unit. */
export function manifestKey(dataset: DatasetName, day: string, projectId: string): string {
  return `${manifestsOf(dataset)}dt=${day}/${projectId}.json`;
}

/** The folder of every manifest of `dataset` (what to list to find its complete units). */
export function manifestsOf(dataset: DatasetName): string {
  return `${MANIFESTS_PREFIX}/${dataset}/`;
}

const MANIFEST_NAME = /^dt=(\d{4}-\d{2}-\d{2})\/([^/]+)\.json$/;

/** The day and project a key of {@link manifestKey}'s names; undefined for any other key. */
export function parseManifestKey(dataset: DatasetName, key: string): { readonly day: string; readonly projectId: string } | undefined {
  const prefix = manifestsOf(dataset);
  const match = key.startsWith(prefix) ? MANIFEST_NAME.exec(key.slice(prefix.length)) : null;
  return match ? { day: match[1] as string, projectId: match[2] as string } : undefined;
}

/**
 * Folder of the checkpoints of units in progress (the storage's scratch prefix): never under a table's prefix, so a reader
 * of `<table>/**` never sees a partial day.
 */
export const STAGING_PREFIX = SCRATCH_PREFIX;

/** `_staging/<dataset>/dt=YYYY-MM-DD/<projectId>/`: the pages kept for one unit until it is complete. */
export function stagingPrefix(dataset: DatasetName, day: string, projectId: string): string {
  return `${STAGING_PREFIX}/${dataset}/dt=${day}/${projectId}/`;
}

/** Where the warehouse keeps the anomalies found (warehouse/records.ts), under the destination's prefix. */
export const ANOMALIES_PREFIX = '_insights/anomalies';
