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
} from './tables.js';
import type { TableDef } from './table-def.js';

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
  /**
   * Rows a day of a documentation site of moderate traffic gives (a GUESS, see
   * {@link TYPICAL_DAY}): what a unit is estimated at when nothing of its dataset was exported
   * yet, in pages of `maxLimit` rows ({@link typicalPagesPerDay}).
   */
  readonly typicalRowsPerDay: number;
}

/**
 * A typical day, per dataset: rows a documentation site of moderate traffic gives in a UTC day.
 * These are GUESSES, not measurements — no public figure says what a Mintlify site sends — made
 * so that a first plan is of the right order rather than 1 request a unit (a new project's 90
 * days were estimated at 630 requests and took 20,867). They err on the large side: a plan that
 * runs shorter than said is better than one that runs 35× longer. The pages follow from the
 * page sizes of the service's API reference (each entry's `maxLimit`: 250 for visitors and
 * views, 100 for searches and feedback, 1000 for assistant turns; feedback by page and caller
 * stats are one request a day whatever the traffic — docs/configuration.md, "What a day costs"). Every estimate made from them is labelled a guess
 * (`plan`, `status`, `export`'s progress), and the first unit of the dataset exported replaces them.
 */
const TYPICAL_DAY = {
  /** ~2,000 page paths with at least one visitor a day: a docs site of a few hundred to 2,000 pages, nearly every one visited (AI crawlers count). 8 pages of 250. */
  visitors: 2_000,
  /** The same paths, counted in views. 8 pages of 250. */
  views: 2_000,
  /** ~500 distinct search terms a day (a few thousand searches; most terms searched once). 5 pages of 100. */
  searches: 500,
  /** ~50 feedback items a day (thumbs, contextual comments, code-snippet reports). 1 page of 100. */
  feedback: 50,
  /** Pages that got feedback that day; one request whatever the number (the API cannot page it). */
  feedback_by_page: 30,
  /** ~500 assistant turns a day. 1 page of 1000. */
  assistant: 500,
  /** One row, one request. */
  caller_stats: 1,
} as const;

/** Every dataset, in the order units are planned and shown. */
export const CATALOG = [
  {
    name: 'visitors',
    endpoint: 'visitors',
    route: 'visitors',
    paging: 'offset',
    maxLimit: 250,
    table: VISITORS_PAGES,
    summaryTable: VISITORS_TOTALS,
    typicalRowsPerDay: TYPICAL_DAY.visitors,
  },
  {
    name: 'views',
    endpoint: 'views',
    route: 'views',
    paging: 'offset',
    maxLimit: 250,
    table: VIEWS_PAGES,
    summaryTable: VIEWS_TOTALS,
    typicalRowsPerDay: TYPICAL_DAY.views,
  },
  {
    name: 'searches',
    endpoint: 'searches',
    route: 'searches',
    paging: 'cursor',
    maxLimit: 100,
    table: SEARCHES,
    summaryTable: SEARCHES_TOTALS,
    typicalRowsPerDay: TYPICAL_DAY.searches,
  },
  { name: 'feedback', endpoint: 'feedback', route: 'feedback', paging: 'cursor', maxLimit: 100, table: FEEDBACK, typicalRowsPerDay: TYPICAL_DAY.feedback },
  {
    name: 'feedback_by_page',
    endpoint: 'feedback/by-page',
    route: 'feedback-by-page',
    paging: 'single',
    maxLimit: 100,
    table: FEEDBACK_BY_PAGE,
    typicalRowsPerDay: TYPICAL_DAY.feedback_by_page,
  },
  {
    name: 'assistant',
    endpoint: 'assistant',
    route: 'assistant',
    paging: 'cursor',
    maxLimit: 1000,
    table: ASSISTANT_CONVERSATIONS,
    typicalRowsPerDay: TYPICAL_DAY.assistant,
  },
  {
    name: 'caller_stats',
    endpoint: 'assistant/caller-stats',
    route: 'caller-stats',
    paging: 'single',
    maxLimit: undefined,
    table: ASSISTANT_CALLER_STATS,
    typicalRowsPerDay: TYPICAL_DAY.caller_stats,
  },
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
export const DATASET_CATALOG = Object.fromEntries(CATALOG.map((entry) => [entry.name, entry])) as {
  readonly [N in DatasetName]: Extract<(typeof CATALOG)[number], { name: N }>;
};

/**
 * Requests a typical day of the dataset needs (a guess: {@link TYPICAL_DAY}): its typical rows
 * in pages of `maxLimit`, at least 1; one for a dataset read in one request.
 */
export function typicalPagesPerDay(entry: Pick<CatalogEntry, 'paging' | 'maxLimit' | 'typicalRowsPerDay'>): number {
  if (entry.paging === 'single' || entry.maxLimit === undefined) return 1;
  return Math.max(1, Math.ceil(entry.typicalRowsPerDay / entry.maxLimit));
}

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
