/**
 * Role: where a correct export puts things. The key layout of the lake — table files,
 * manifests, the run log — is written out here rather than imported from
 * `functions/warehouse/tables.ts`, so that a change of the layout fails a test. Which tables a
 * dataset has comes from the catalog.
 */
import path from 'node:path';
import { expect } from 'vitest';
import { CATALOG, DATASET_NAMES, type DatasetName } from '../../functions/warehouse/catalog.js';
import { runIndexKey } from '../../functions/warehouse/lake/layout.js';

export const ALL_DATASETS = DATASET_NAMES;

/** Each dataset's tables: the one-row summary (if any) and the table with one row per API row. */
export const TABLES_OF: Readonly<Record<DatasetName, { readonly summary?: string; readonly rows: string }>> = Object.fromEntries(
  CATALOG.map((entry) => [entry.name, { rows: entry.table.name, ...('summaryTable' in entry ? { summary: entry.summaryTable.name } : {}) }]),
) as Record<DatasetName, { readonly summary?: string; readonly rows: string }>;

/** Every table name of a dataset, summary first. */
export function tableNames(dataset: DatasetName): string[] {
  const { summary, rows } = TABLES_OF[dataset];
  return summary === undefined ? [rows] : [summary, rows];
}

// --- a unit's files ---------------------------------------------------------------------------

/** `<table>/dt=<day>/<projectId>.parquet`. */
export function tableKey(table: string, day: string, projectId: string): string {
  return `${table}/dt=${day}/${projectId}.parquet`;
}

/** `_manifests/<dataset>/dt=<day>/<projectId>.json`. */
export function manifestKeyOf(dataset: DatasetName, day: string, projectId: string): string {
  return `_manifests/${dataset}/dt=${day}/${projectId}.json`;
}

/** Every key a complete unit has: its tables' files and its manifest. */
export function unitKeys(dataset: DatasetName, day: string, projectId: string): string[] {
  return [...tableNames(dataset).map((table) => tableKey(table, day, projectId)), manifestKeyOf(dataset, day, projectId)];
}

/** The files of one exported visitors day under a local destination `root`. */
export function dayFiles(root: string, projectId: string, day: string) {
  const file = (key: string) => path.join(root, ...key.split('/'));
  return {
    pages: file(tableKey('visitors_pages', day, projectId)),
    totals: file(tableKey('visitors_totals', day, projectId)),
    manifest: file(manifestKeyOf('visitors', day, projectId)),
  };
}

// --- the run log (issue 11) -------------------------------------------------------------------

/**
 * `<dest>/export_runs/dt=<UTC day the run started>/<runId>.json`, the run id being the start
 * time to the second (colons as dashes), `Z` and 8 hex digits.
 */
const RUN_LOG_FOLDER = 'export_runs';

/**
 * The key of a run's record under `prefix` (`''` or ending in `/`): the run that started at
 * `startedAt` (epoch ms), or without it any run whose folder day is the day of its id.
 */
export function runRecordPattern(startedAt?: number, prefix = ''): RegExp {
  const head = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (startedAt === undefined) {
    return new RegExp(`^${head}${RUN_LOG_FOLDER}/dt=(\\d{4}-\\d{2}-\\d{2})/\\1T\\d{2}-\\d{2}-\\d{2}Z-[0-9a-f]{8}\\.json$`);
  }
  const iso = new Date(startedAt).toISOString();
  return new RegExp(`^${head}${RUN_LOG_FOLDER}/dt=${iso.slice(0, 10)}/${iso.slice(0, 19).replaceAll(':', '-')}Z-[0-9a-f]{8}\\.json$`);
}

/** The key of the run log's index of the month a run started in (`startedAt`, epoch ms) under `prefix`: the export folds its record in. */
export function runIndexOf(startedAt: number, prefix = ''): string {
  return `${prefix}${runIndexKey(new Date(startedAt).toISOString().slice(0, 7))}`;
}

/** An asymmetric matcher for the key of a run's record, for `toEqual` over a list of keys. */
export function aRunRecord(startedAt?: number, prefix = ''): unknown {
  return expect.stringMatching(runRecordPattern(startedAt, prefix));
}

/** The keys of `keys` under the run log (`<prefix>export_runs/`). */
export function runRecordsIn(keys: readonly string[], prefix = ''): string[] {
  return keys.filter((key) => key.startsWith(`${prefix}${RUN_LOG_FOLDER}/`));
}

/** The keys of `keys` outside the run log. */
export function withoutRunRecords(keys: readonly string[], prefix = ''): string[] {
  return keys.filter((key) => !key.startsWith(`${prefix}${RUN_LOG_FOLDER}/`));
}
