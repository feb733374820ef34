/**
 * The bucket's key layout beside the tables: where a unit's commit marker (manifest) and its
 * checkpoints (staging) live. Table files are keyed by `partitionKey` (`tables.ts`); these keys
 * are by dataset, so they read the catalog's names. The folders and the day keys are the
 * layout's (lake/layout.ts).
 */
import type { DatasetName } from './catalog.js';
import { dayKey, folderOf, LAYOUT, parseDayKey, rootOf } from './lake/layout.js';

/** Folder of the commit markers: `<dest>/_manifests/<dataset>/dt=YYYY-MM-DD/<projectId>.json`. */
export const MANIFESTS_PREFIX = rootOf('manifest').slice(0, -1);

/** Where the commit marker of one unit lives; written after every table file of the unit. */
export function manifestKey(dataset: DatasetName, day: string, projectId: string): string {
  return dayKey(folderOf('manifest', dataset), day, `${projectId}.json`);
}

/** The folder of every manifest of `dataset` (what to list to find its complete units). */
export function manifestsOf(dataset: DatasetName): string {
  return `${folderOf('manifest', dataset)}/`;
}

/** The day and project a key of {@link manifestKey}'s names; undefined for any other key. */
export function parseManifestKey(dataset: DatasetName, key: string): { readonly day: string; readonly projectId: string } | undefined {
  const parsed = parseDayKey(key);
  if (parsed === undefined || parsed.folder !== folderOf('manifest', dataset) || parsed.name.includes('/') || !parsed.name.endsWith('.json')) return undefined;
  const projectId = parsed.name.slice(0, -'.json'.length);
  return projectId === '' ? undefined : { day: parsed.day, projectId };
}

/**
 * Folder of the checkpoints of units in progress (the storage's scratch prefix): never under a table's prefix, so a reader
 * of `<table>/**` never sees a partial day.
 */
export const STAGING_PREFIX = rootOf('staging').slice(0, -1);

/** `_staging/<dataset>/dt=YYYY-MM-DD/<projectId>/`: the pages kept for one unit until it is complete. */
export function stagingPrefix(dataset: DatasetName, day: string, projectId: string): string {
  return dayKey(folderOf('staging', dataset), day, `${projectId}/`);
}

/** Where the warehouse keeps the anomalies found (warehouse/records.ts), under the destination's prefix. */
export const ANOMALIES_PREFIX = LAYOUT.anomalies.folder;
