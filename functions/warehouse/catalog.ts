/**
 * The dataset catalog: every analytics dataset, once, as plain data — its name (config,
 * CLI, manifests, staging, leases), its endpoint, its paging, its largest `limit`, and the
 * tables it writes. The export (`functions/export/datasets.ts`), the infra (grants, Glue),
 * the sandbox's routes, the tests and the benchmarks import it instead of restating it.
 *
 * Adding an endpoint takes three things:
 * 1. an entry here (name, endpoint, sandbox route, paging, max limit, tables);
 * 2. its response schema in `schemas.ts` (the types are inferred from it) and its tables in
 *    `tables.ts` (columns: the Parquet writer, Glue and docs/warehouse.md come from them);
 * 3. its rows: a `DatasetDef` in `functions/export/datasets.ts` (the compiler asks for one per
 *    name), and in the sandbox its generator (`sandbox/generators/<name>.ts`) and its endpoint
 *    (`sandbox/endpoints/<name>.ts`), each listed in its folder's `registry.ts`.
 */
import {
  ASSISTANT_CALLER_STATS,
  ASSISTANT_CONVERSATIONS,
  FEEDBACK,
  FEEDBACK_BY_PAGE,
  SEARCHES,
  SEARCHES_TOTALS,
  VIEWS_PAGES,
  VIEWS_TOTALS,
  VISITORS_PAGES,
  VISITORS_TOTALS,
  type TableDef,
} from './tables.js';

/** How an endpoint pages: `offset`/`limit`, an opaque `cursor`, or one request for the day. */
export type PagingKind = 'offset' | 'cursor' | 'single';

export interface CatalogEntry {
  /** The dataset's name everywhere (EXPORT_DATASETS, `--dataset`, `_manifests/<name>/`). */
  readonly name: string;
  /** Path after `/v1/analytics/{projectId}/`. */
  readonly endpoint: string;
  /** The sandbox's name of the route (request log, fault rules). */
  readonly route: string;
  readonly paging: PagingKind;
  /** The largest `limit` the endpoint allows (the export always asks for it); undefined: no `limit`. */
  readonly maxLimit: number | undefined;
  /** One row per API row, streamed as pages arrive. */
  readonly table: TableDef;
  /** A one-row table written when the unit is complete (site totals), if any. */
  readonly summaryTable?: TableDef;
}

/** Every dataset, in the order units are planned and shown. */
export const CATALOG = [
  { name: 'visitors', endpoint: 'visitors', route: 'visitors', paging: 'offset', maxLimit: 250, table: VISITORS_PAGES, summaryTable: VISITORS_TOTALS },
  { name: 'views', endpoint: 'views', route: 'views', paging: 'offset', maxLimit: 250, table: VIEWS_PAGES, summaryTable: VIEWS_TOTALS },
  { name: 'searches', endpoint: 'searches', route: 'searches', paging: 'cursor', maxLimit: 100, table: SEARCHES, summaryTable: SEARCHES_TOTALS },
  { name: 'feedback', endpoint: 'feedback', route: 'feedback', paging: 'cursor', maxLimit: 100, table: FEEDBACK },
  { name: 'feedback_by_page', endpoint: 'feedback/by-page', route: 'feedback-by-page', paging: 'single', maxLimit: 100, table: FEEDBACK_BY_PAGE },
  { name: 'assistant', endpoint: 'assistant', route: 'assistant', paging: 'cursor', maxLimit: 1000, table: ASSISTANT_CONVERSATIONS },
  { name: 'caller_stats', endpoint: 'assistant/caller-stats', route: 'caller-stats', paging: 'single', maxLimit: undefined, table: ASSISTANT_CALLER_STATS },
] as const satisfies readonly CatalogEntry[];

/** A dataset's name: `visitors`, `views`, `searches`, `feedback`, `feedback_by_page`, `assistant`, `caller_stats`. */
export type DatasetName = (typeof CATALOG)[number]['name'];

/** The sandbox's route names of the analytics endpoints. */
export type CatalogRoute = (typeof CATALOG)[number]['route'];

/** Every dataset name, in catalog order. */
export const DATASET_NAMES = CATALOG.map((entry) => entry.name) as readonly DatasetName[] as readonly [DatasetName, ...DatasetName[]];

export function isDatasetName(value: string): value is DatasetName {
  return (DATASET_NAMES as readonly string[]).includes(value);
}

/** The catalog entry of each dataset, by name. */
export const DATASET_CATALOG = Object.fromEntries(CATALOG.map((entry) => [entry.name, entry])) as unknown as {
  readonly [N in DatasetName]: Extract<(typeof CATALOG)[number], { name: N }>;
};

/** The tables of a dataset, the summary table first (the order files are replaced in). */
export function tablesOf(entry: Pick<CatalogEntry, 'table' | 'summaryTable'>): readonly TableDef[] {
  return entry.summaryTable ? [entry.summaryTable, entry.table] : [entry.table];
}

/**
 * The tables each dataset writes, one file each per (project, day), all before the unit's
 * manifest. A complete unit has every one of them, even when a file has no rows.
 */
export const DATASET_TABLES: Readonly<Record<DatasetName, readonly TableDef[]>> = Object.fromEntries(
  CATALOG.map((entry) => [entry.name, tablesOf(entry)]),
) as Record<DatasetName, readonly TableDef[]>;
